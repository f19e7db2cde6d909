import type { Upload } from '../../http/context.js';
import { errors } from '../../errors.js';

/** The two files a whitelabel document carries. */
export const FILE_KINDS = ['logo', 'icon'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** Image types Kazoo stores as a whitelabel logo; an icon may also be an .ico. */
const IMAGE_TYPES = ['image/jpg', 'image/jpeg', 'image/png', 'image/gif'];
const ICON_TYPES = ['image/ico', 'image/vnd.microsoft.icon', 'image/x-icon', 'image/icon'];

/** Bodies holding the file in base64, a `data:` URL or bare (what Monster UI sends). */
const BASE64_TYPES = ['application/base64', 'application/x-base64'];

/** The media types a kind of file may be uploaded as. */
export function acceptedTypes(kind: FileKind): string[] {
  return [...IMAGE_TYPES, ...(kind === 'icon' ? ICON_TYPES : []), ...BASE64_TYPES];
}

/** A file as stored and answered. */
export interface StoredImage {
  contentType: string;
  bytes: Buffer;
}

/** The type of an image from its first bytes (its magic number), or undefined when it is none of those tel takes. */
function sniffed(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))) return 'image/x-icon';
  return undefined;
}

/** A media type's file extension (the names under which tel stores and offers files). */
function extensionOf(contentType: string): string {
  if (contentType === 'image/png') return 'png';
  if (contentType === 'image/gif') return 'gif';
  if (contentType === 'image/jpg' || contentType === 'image/jpeg') return 'jpg';
  return 'ico';
}

function decodeBase64(text: string): StoredImage {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[^,;]*)*),(.*)$/s.exec(text);
  const payload = (m ? m[3] : text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload) || (m && !m[2].includes(';base64'))) {
    throw errors.invalidField('file', 'encoding', 'The file is not valid base64');
  }
  const bytes = Buffer.from(payload, 'base64');
  const contentType = m?.[1]?.toLowerCase() ?? sniffed(bytes) ?? 'application/octet-stream';
  return { contentType, bytes };
}

/**
 * The image a logo or icon upload carries: the body itself (an image type), or decoded from
 * base64. Nothing sent is a 400 on `file`; a type the kind does not take, a 415.
 */
export function imageOf(upload: Upload | undefined, kind: FileKind): StoredImage {
  if (!upload || upload.bytes.length === 0) throw errors.invalidField('file', 'required', 'An image file is required');
  const image = BASE64_TYPES.includes(upload.contentType) ? decodeBase64(upload.bytes.toString('latin1').trim()) : { ...upload };
  if (image.bytes.length === 0) throw errors.invalidField('file', 'required', 'An image file is required');
  const accepted = acceptedTypes(kind);
  if (!accepted.includes(image.contentType) || BASE64_TYPES.includes(image.contentType)) throw errors.unsupportedMediaType(accepted);
  // the bytes must be the image the type says (HTML sent as image/png would be stored and offered as a picture)
  const actual = sniffed(image.bytes);
  if (actual === undefined || extensionOf(actual) !== extensionOf(image.contentType)) {
    throw errors.invalidField('file', 'type', `The file is not a ${image.contentType} image`, { target: image.contentType });
  }
  return { contentType: image.contentType, bytes: image.bytes };
}

/**
 * The attachment name Kazoo gives a file: `<kind>-<name>`, the name given (`?filename=`) or made
 * up, its extension the one of the file's type whatever the name says (`logo.html` of a PNG is
 * offered as `logo-logo.png`). Also what a download is named, so names stored before keep no other extension.
 */
export function fileName(kind: FileKind, given: string | null, contentType: string, now = Date.now()): string {
  const base = given && /^[\w.-]{1,128}$/.test(given) ? given.replace(new RegExp(`^${kind}-`), '').replace(/\.\w*$/, '') : '';
  return `${kind}-${base || `uploaded_file_${Math.floor(now / 1000)}`}.${extensionOf(contentType)}`;
}
