import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { DB_FILE_MODE } from '../../store/db.js';

/**
 * The login key (a pepper, in OWASP's words): 32 random bytes kept beside the database file, in
 * `<database>.key` (owner-only), never in it. Users' login hashes are salted with a value derived
 * from it (see credentials.ts), so a copy of the database without its key file gives a thief
 * nothing to test guesses against. `tel backup` writes the key beside the backup, `tel restore`
 * puts a backup's key back, `tel reset` keeps it; an in-memory database has one in memory.
 */
export interface LoginKey {
  /** a short fingerprint, stored with each login hash: which key made it */
  id: string;
  secret: Buffer;
}

/** The key file of a database file; undefined for an in-memory database. */
export function loginKeyFile(dbFile: string): string | undefined {
  return dbFile === '' || dbFile === ':memory:' || dbFile.startsWith('file:') ? undefined : `${dbFile}.key`;
}

const KEY_TEXT = /^([0-9a-f]{64})\s*$/;

function fromHex(hex: string): LoginKey {
  return { id: createHash('sha256').update(`tel login key ${hex}`).digest('hex').slice(0, 12), secret: Buffer.from(hex, 'hex') };
}

/** Reads a key file: undefined when there is none; an error when it is not a key. */
export function readLoginKey(file: string): LoginKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const m = KEY_TEXT.exec(text);
  if (!m) throw new Error(`${file} is not a tel login key (64 hex digits)`);
  // as the database: its owner only (a looser file from a copy is tightened)
  try {
    chmodSync(file, DB_FILE_MODE);
  } catch {
    /* another owner's file: left as it is */
  }
  return fromHex(m[1]);
}

/**
 * Writes `key` as `file` unless one is there already (answers the key the file then holds):
 * written aside and linked into place, so that two processes making a key at once agree on one.
 */
export function writeLoginKey(file: string, key: LoginKey, replace = false): LoginKey {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${key.secret.toString('hex')}\n`, { mode: DB_FILE_MODE });
  try {
    chmodSync(aside, DB_FILE_MODE);
    if (replace) rmSync(file, { force: true });
    linkSync(aside, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readLoginKey(file)!;
  } finally {
    rmSync(aside, { force: true });
  }
}

const keys = new WeakMap<Core, LoginKey>();

/**
 * The database's login key: read from its file, or (with `create`, when a password is about to be
 * hashed) made and written. Without `create`, undefined while there is none: no login hash can
 * match then, and none is written.
 */
export function loginKey(core: Core, create: true): LoginKey;
export function loginKey(core: Core, create?: boolean): LoginKey | undefined;
export function loginKey(core: Core, create = false): LoginKey | undefined {
  const known = keys.get(core);
  if (known) return known;
  const file = loginKeyFile(core.file);
  let key = file ? readLoginKey(file) : undefined;
  if (!key && create) {
    const made = fromHex(randomBytes(32).toString('hex'));
    key = file ? writeLoginKey(file, made) : made;
  }
  if (key) keys.set(core, key);
  return key;
}

/** Forgets the key read for `core` (after `tel restore` put another one in place). */
export function forgetLoginKey(core: Core): void {
  keys.delete(core);
}

/**
 * Gives `to` the login key `from` hashed with (a plan made on an in-memory copy, applied to the new
 * file it was made for): written beside `to`'s file unless that file has a key already.
 */
export function shareLoginKey(from: Core, to: Core): void {
  const key = keys.get(from);
  if (!key || keys.has(to)) return;
  const file = loginKeyFile(to.file);
  keys.set(to, file ? writeLoginKey(file, key) : key);
}
