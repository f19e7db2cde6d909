import { extensionOf, fileFromUpload, ICON_TYPES, IMAGE_TYPES, type StoredFile, type Upload } from '../documents/files.js';

/** The files a whitelabel document carries: a logo and an icon (images), a welcome page (HTML). */
export const FILE_KINDS = ['logo', 'icon', 'welcome'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** The media types a kind of file may be uploaded as (base64 of them too). */
export function acceptedTypes(kind: FileKind): string[] {
  if (kind === 'welcome') return ['text/html'];
  return [...IMAGE_TYPES, ...(kind === 'icon' ? ICON_TYPES : [])];
}

/** A file as stored and answered. */
export type StoredImage = StoredFile;

/**
 * The file an upload of a kind carries: the body itself, or decoded from base64. Nothing sent is
 * a 400 on `file`; a type the kind does not take, a 415; an image whose bytes are not of its type, a 400.
 */
export function fileOf(upload: Upload | undefined, kind: FileKind): StoredImage {
  return fileFromUpload(upload, acceptedTypes(kind), kind === 'welcome' ? 'An html file' : 'An image file');
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
