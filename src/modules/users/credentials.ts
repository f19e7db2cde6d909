import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { md5Hex, sha1Hex } from '../../util/ids.js';

/**
 * How user credentials rest in the database. Kazoo clients log in with the md5 (or sha1) hex of
 * `username:password`, so that hex is what the server must recognise. Stored as is (as Kazoo
 * does), it would log in for whoever reads the file; so tel keeps only a salted scrypt of each
 * form. A login does not say which user it is for, so each enabled user of the account is a
 * candidate: a 4-bit hint (the first hex digit of the SHA-256 of the form sent) narrows them to
 * about one in sixteen before any scrypt runs, and tells a thief of the file next to nothing.
 */
export interface StoredCredentials {
  /** per-user random salt (hex) */
  salt: string;
  /** scrypt of the md5 form, and of the sha1 form (hex) */
  md5: string;
  sha1: string;
  /** first hex digit of sha256 of each form */
  md5_hint: string;
  sha1_hint: string;
}

/** Where a user document keeps them, under `pvt`. */
export const CREDENTIALS_FIELD = 'pvt_credentials';

/** scrypt's cost: node's default N (2^14), about 20 ms a hash on a lab box, off the event loop at login. */
const SCRYPT_OPTIONS = { N: 16384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

/** The login forms of `username:password`, as clients send them (username lower-cased, as Kazoo). */
export function loginForms(username: string, password: string): { md5: string; sha1: string } {
  const creds = `${username.toLowerCase()}:${password}`;
  return { md5: md5Hex(creds), sha1: sha1Hex(creds) };
}

function hint(form: string): string {
  return createHash('sha256').update(form.toLowerCase()).digest('hex')[0];
}

/** What to store for a password: salted scrypt of both login forms. */
export function hashCredentials(username: string, password: string): StoredCredentials {
  const forms = loginForms(username, password);
  const salt = randomBytes(16);
  const key = (form: string) => scryptSync(form, salt, KEY_BYTES, SCRYPT_OPTIONS).toString('hex');
  return {
    salt: salt.toString('hex'),
    md5: key(forms.md5),
    sha1: key(forms.sha1),
    md5_hint: hint(forms.md5),
    sha1_hint: hint(forms.sha1),
  };
}

/**
 * Salted hashes from the md5 form alone (a user stored before salting, upgraded at a login): the
 * sha1 form cannot be derived from it, so it stays empty and matches nothing until the password
 * is set again.
 */
export function hashCredentialsFromForm(md5Form: string): StoredCredentials {
  const salt = randomBytes(16);
  const form = md5Form.toLowerCase();
  return {
    salt: salt.toString('hex'),
    md5: scryptSync(form, salt, KEY_BYTES, SCRYPT_OPTIONS).toString('hex'),
    sha1: '',
    md5_hint: hint(form),
    sha1_hint: '',
  };
}

/** Whether a stored record may match `form` (a cheap filter before scrypt). */
export function mayMatch(stored: StoredCredentials, form: string, method: 'md5' | 'sha'): boolean {
  return (method === 'sha' ? stored.sha1_hint : stored.md5_hint) === hint(form);
}

/** Whether `form` (the hex a client sent) is the stored credential, compared in constant time. */
export async function verifyCredentials(stored: StoredCredentials, form: string, method: 'md5' | 'sha'): Promise<boolean> {
  const expected = Buffer.from(method === 'sha' ? stored.sha1 : stored.md5, 'hex');
  if (expected.length === 0) return false;
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(form.toLowerCase(), Buffer.from(stored.salt, 'hex'), KEY_BYTES, SCRYPT_OPTIONS, (err, key) => (err ? reject(err) : resolve(key))),
  );
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Compares two strings in constant time (for their length): secrets sent by clients. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
