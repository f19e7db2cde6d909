import type { StoredFile } from '../documents/files.js';

/** vCard 3.0's escapes in a text value: backslash, comma, semicolon, and line breaks. */
function escape(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');
}

/** Folds a content line at 75 octets, continuation lines starting with a space (RFC 2425). */
function fold(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // never split a UTF-8 character: back up over its continuation bytes
    while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
    parts.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
    limit = 74;
  }
  return parts.join('\r\n ');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The TYPE a vCard gives an image's media type. */
function photoType(contentType: string): string {
  const sub = contentType.split('/')[1] ?? 'jpeg';
  return sub === 'jpg' ? 'JPEG' : sub.toUpperCase();
}

/**
 * A user as a vCard 3.0 (RFC 2426), with the fields Kazoo puts in it: the name, the account's
 * `org`, the photo, email, birthday, note, title, role, time zone, nicknames, the internal and
 * external caller id numbers and the addresses. A field without a value is left out. Lines end
 * in CRLF and are folded at 75 octets, as the RFC says (Kazoo cuts them without folding).
 */
export function userVcard(user: Record<string, unknown>, opts: { org?: string; photo?: StoredFile } = {}): string {
  const profile = (user.profile && typeof user.profile === 'object' ? user.profile : {}) as Record<string, unknown>;
  const u = { ...user, ...profile };
  const first = str(u.first_name);
  const middle = str(u.middle_name);
  const last = str(u.last_name);
  const lines = ['BEGIN:VCARD', 'VERSION:3.0'];
  const add = (type: string, value: string | undefined, escaped = false) => {
    if (value !== undefined && value !== '') lines.push(`${type}:${escaped ? value : escape(value)}`);
  };
  // FN is required by the RFC: the username stands in for a user without a name
  add('FN', [first, middle, last].filter(Boolean).join(' ') || str(u.username) || 'Unnamed');
  lines.push(`N:${[last, first, middle].map((p) => escape(p ?? '')).join(';')};;`);
  add('ORG', str(u.org) ?? opts.org);
  if (opts.photo) add(`PHOTO;ENCODING=b;TYPE=${photoType(opts.photo.contentType)}`, opts.photo.bytes.toString('base64'), true);
  add('EMAIL;TYPE=INTERNET', str(u.email));
  add('BDAY', str(u.birthday));
  add('NOTE', str(u.note));
  add('TITLE', str(u.title));
  add('ROLE', str(u.role));
  add('TZ', str(u.timezone));
  const nicknames = Array.isArray(u.nicknames) ? u.nicknames.filter((n): n is string => typeof n === 'string' && n !== '') : [];
  if (nicknames.length > 0) add('NICKNAME', nicknames.map(escape).join(','), true);
  const callerId = (u.caller_id && typeof u.caller_id === 'object' ? u.caller_id : {}) as Record<string, { number?: unknown }>;
  add('TEL;TYPE=WORK', str(callerId.internal?.number));
  add('TEL;TYPE=WORK,VOICE', str(callerId.external?.number));
  for (const a of Array.isArray(u.addresses) ? u.addresses : []) {
    const address = str((a as Record<string, unknown>)?.address);
    if (!address) continue;
    const given = (a as { types?: unknown }).types;
    const types = Array.isArray(given) ? given.filter((t): t is string => typeof t === 'string' && /^[\w-]{1,32}$/.test(t)) : [];
    const type = types.length > 0 ? types.join(',') : 'intl,postal,parcel,work';
    add(`ADR;TYPE=${type}`, `;;${escape(address)};;;;`, true);
  }
  lines.push('END:VCARD');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}
