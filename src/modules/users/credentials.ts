import { createHash, createHmac, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { md5Hex, sha1Hex } from '../../util/ids.js';
import type { LoginKey } from './login-key.js';
import { Counter } from '../../util/metrics.js';
import { scryptOffLoop } from './hash-threads.js';

/**
 * How user credentials rest in the database. Kazoo clients log in with the md5 (or sha1) hex of
 * `username:password` and an account, never saying which user they are; so that hex (a "form") is
 * what the server must recognise, and it must find the user without trying each one.
 *
 * A form is stored as scrypt(form, salt), the salt an HMAC of the account id under the database's
 * login key (a pepper kept in a file beside the database, see login-key.ts). A login computes one
 * scrypt per account it names and looks the result up in an index: one hash, right or wrong,
 * however many users the account has.
 *
 * Against a stolen file: without the key file, the salt is unknown and the stored values test no
 * guess. With it, each guess of one user's password costs one scrypt — the username is part of
 * the form and unique in its account, so no two users share work, which is what a per-user salt
 * would give. Before this, each user had a random salt, but a 4-bit hint (to skip most of the
 * account's users at login) let a thief discard 15 guesses in 16 with one SHA-256: a guess cost
 * on average 2^14/16 = 2^10 scrypt steps over 16 MiB. At N = 2^11 one costs 2^11 steps over 2 MiB:
 * twice the time, a quarter of the time × memory that hardware built for scrypt pays. The server
 * hashes a form in about 4 ms rather than 30 (a user's two forms when it is created, one a login).
 */
export interface LoginHashes {
  /** the login key's id (login-key.ts): a hash made with another key can never match */
  key: string;
  /** scrypt of the md5 form, and of the sha1 form (hex); '' when unknown (a user upgraded at an md5 login) */
  md5: string;
  sha1: string;
}

/** Where a user document keeps them, under `pvt`. */
export const LOGIN_FIELD = 'pvt_login';

/** scrypt's cost: 2 MiB, about 4 ms a hash on a lab box (see above). */
const SCRYPT_OPTIONS: ScryptOptions = { N: 2 ** 11, r: 8, p: 1 };
const KEY_BYTES = 32;

/** The login forms of `username:password`, as clients send them (username lower-cased, as Kazoo). */
export function loginForms(username: string, password: string): { md5: string; sha1: string } {
  const creds = `${username.toLowerCase()}:${password}`;
  return { md5: md5Hex(creds), sha1: sha1Hex(creds) };
}

/** scrypt computations since the process started (`GET /metrics`; tests count what a login costs with it). */
export const passwordHashes = new Counter('tel_password_hashes_total', 'Password hashes (scrypt) computed: two a password set, one a login.');

/** How many password hashes this process has computed. */
export function passwordHashCount(): number {
  return passwordHashes.get();
}

function accountSalt(key: LoginKey, accountId: string): Buffer {
  return createHmac('sha256', key.secret).update(`tel login salt ${accountId}`).digest();
}

/** The stored hash of one form (hex), computed here: for the CLI, which may block. */
export function loginHashSync(key: LoginKey, accountId: string, form: string): string {
  passwordHashes.inc();
  return scryptSync(form.toLowerCase(), accountSalt(key, accountId), KEY_BYTES, SCRYPT_OPTIONS).toString('hex');
}

/** The stored hash of one form (hex), computed on a hash thread (hash-threads.ts): the event loop goes on meanwhile. */
export function loginHash(key: LoginKey, accountId: string, form: string): Promise<string> {
  passwordHashes.inc();
  return scryptOffLoop(form.toLowerCase(), accountSalt(key, accountId), KEY_BYTES, SCRYPT_OPTIONS).then((b) => b.toString('hex'));
}

/** What to store for a password, hashed off the event loop (both forms at once). */
export async function hashPassword(key: LoginKey, accountId: string, username: string, password: string): Promise<LoginHashes> {
  const forms = loginForms(username, password);
  const [md5, sha1] = await Promise.all([loginHash(key, accountId, forms.md5), loginHash(key, accountId, forms.sha1)]);
  return { key: key.id, md5, sha1 };
}

/** What to store for a password, hashed here (the CLI). */
export function hashPasswordSync(key: LoginKey, accountId: string, username: string, password: string): LoginHashes {
  const forms = loginForms(username, password);
  return { key: key.id, md5: loginHashSync(key, accountId, forms.md5), sha1: loginHashSync(key, accountId, forms.sha1) };
}

/**
 * Credentials as tel stored them before login keys: both forms salted per user, with a 4-bit hint
 * each. Still recognised (by going through the account's users that have them) until each such
 * user logs in once with md5 and is stored with login hashes.
 */
export interface SaltedCredentials {
  salt: string;
  md5: string;
  sha1: string;
  md5_hint: string;
  sha1_hint: string;
}

/** Where a user document kept them. */
export const SALTED_FIELD = 'pvt_credentials';

/** The hint a salted record keeps of a form (the first hex digit of its SHA-256). */
export function saltedHint(form: string): string {
  return createHash('sha256').update(form.toLowerCase()).digest('hex')[0];
}

/** Whether `form` is the salted record's, compared in constant time (one scrypt off the event loop). */
export async function verifySalted(stored: SaltedCredentials, form: string, method: 'md5' | 'sha'): Promise<boolean> {
  const expected = Buffer.from(method === 'sha' ? stored.sha1 : stored.md5, 'hex');
  if (expected.length === 0 || (method === 'sha' ? stored.sha1_hint : stored.md5_hint) !== saltedHint(form)) return false;
  passwordHashes.inc();
  const actual = await scryptOffLoop(form.toLowerCase(), Buffer.from(stored.salt, 'hex'), KEY_BYTES, { N: 16384, r: 8, p: 1 });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Compares two strings in constant time (for their length): secrets sent by clients. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
