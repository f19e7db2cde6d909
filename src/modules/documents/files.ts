import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';

/** A file as stored and answered: its media type and bytes. */
export interface StoredFile {
  contentType: string;
  bytes: Buffer;
}

/** A file as sent (the body of a request that takes one): the media type given, lower case, without parameters, and the bytes. */
export type Upload = StoredFile;

/** The image types Kazoo stores (a logo, a photo, an app's icon). */
export const IMAGE_TYPES = ['image/jpg', 'image/jpeg', 'image/png', 'image/gif'];

/** An icon's media types besides those (a whitelabel icon may be an .ico). */
export const ICON_TYPES = ['image/ico', 'image/vnd.microsoft.icon', 'image/x-icon', 'image/icon'];

/** The file extension of each media type tel stores: also the format an image's bytes must be in. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpg': 'jpg',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'text/html': 'html',
  ...Object.fromEntries(ICON_TYPES.map((t) => [t, 'ico'])),
};

/** The extension of a media type (the names under which tel stores and offers files). */
export function extensionOf(contentType: string): string {
  return EXTENSIONS[contentType] ?? 'bin';
}

/** Bodies holding the file in base64, a `data:` URL or bare (what Monster UI sends). */
export const BASE64_TYPES = ['application/base64', 'application/x-base64'];

/** The type of an image from its first bytes (its magic number), or undefined when it is none of those tel takes. */
export function sniffedType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))) return 'image/x-icon';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

function decodeBase64(text: string): StoredFile {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[^,;]*)*),(.*)$/s.exec(text);
  const payload = (m ? m[3] : text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload) || (m && !m[2].includes(';base64'))) {
    throw errors.invalidField('file', 'encoding', 'The file is not valid base64');
  }
  const bytes = Buffer.from(payload, 'base64');
  const contentType = m?.[1]?.toLowerCase() ?? sniffedType(bytes) ?? 'application/octet-stream';
  return { contentType, bytes };
}

/**
 * The file an upload carries: the body itself, or decoded from base64 (a `data:` URL or bare).
 * Nothing sent is a 400 on `file` (`what` says what was expected); a type not in `accepted`, a 415;
 * an image whose bytes are not of its type (its magic number), a 400 on `file`.
 */
export function fileFromUpload(upload: Upload | undefined, accepted: string[], what = 'An image file'): StoredFile {
  if (!upload || upload.bytes.length === 0) throw errors.invalidField('file', 'required', `${what} is required`);
  const file = BASE64_TYPES.includes(upload.contentType) ? decodeBase64(upload.bytes.toString('latin1').trim()) : { ...upload };
  if (file.bytes.length === 0) throw errors.invalidField('file', 'required', `${what} is required`);
  if (!accepted.includes(file.contentType) || BASE64_TYPES.includes(file.contentType)) throw errors.unsupportedMediaType([...accepted, ...BASE64_TYPES]);
  // an image's bytes must be the image its type says (HTML sent as image/png would be stored and offered as a picture)
  if (file.contentType.startsWith('image/')) {
    const actual = sniffedType(file.bytes);
    if (actual === undefined || extensionOf(actual) !== extensionOf(file.contentType)) {
      throw errors.invalidField('file', 'type', `The file is not a ${file.contentType} image`, { target: file.contentType });
    }
  }
  return { contentType: file.contentType, bytes: file.bytes };
}

/** A document's attachment (a user's photo), or undefined. */
export function findAttachment(core: Core, docId: string, name: string): StoredFile | undefined {
  const r = stmt(core.db, 'SELECT content_type, bytes FROM doc_attachments WHERE doc_id = ? AND name = ?').get(docId, name) as
    | { content_type: string; bytes: Uint8Array }
    | undefined;
  return r ? { contentType: r.content_type, bytes: Buffer.from(r.bytes) } : undefined;
}

/** Stores a document's attachment, replacing the one of that name. */
export function putAttachment(core: Core, accountId: string, docId: string, name: string, file: StoredFile): void {
  stmt(core.db, 'INSERT OR REPLACE INTO doc_attachments (doc_id, name, account_id, content_type, bytes, modified) VALUES (?, ?, ?, ?, ?, ?)').run(
    docId,
    name,
    accountId,
    file.contentType,
    file.bytes,
    Date.now(),
  );
}

/** Removes a document's attachment of that name (or all of them); answers whether there was one. */
export function deleteAttachments(core: Core, docId: string, name?: string): boolean {
  const res = name === undefined
    ? stmt(core.db, 'DELETE FROM doc_attachments WHERE doc_id = ?').run(docId)
    : stmt(core.db, 'DELETE FROM doc_attachments WHERE doc_id = ? AND name = ?').run(docId, name);
  return Number(res.changes) > 0;
}
