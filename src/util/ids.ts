import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { errors } from '../errors.js';

// Ids come from a pool of random bytes filled 4 KiB at a time: one call into the system's
// generator per 256 ids rather than one per id (a simulated call takes several).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** A new 32-hex document id, as Kazoo's. */
export function newId(): string {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = pool.toString('hex', poolOffset, poolOffset + 16);
  poolOffset += 16;
  return id;
}

/**
 * A new 32-hex id that sorts by when it was made: 12 hex digits of the unix milliseconds, then 20
 * random ones. For the call ids tel makes up: a call's CDRs are keyed by them, and random keys
 * put each new row of that index on a page of its own, which every commit writes whole to the log
 * (a random key a row wrote an 8 KiB page per call; ids in time order share the index's last page).
 */
export function newTimeOrderedId(nowMs: number = Date.now()): string {
  return Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0').slice(-12) + newId().slice(12);
}

/** True for a 32-hex lower-case id. */
export function isDocId(value: string): boolean {
  if (value.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A new 64-hex API key (32 random bytes). */
export function newApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** md5 hex of a string. */
export function md5Hex(value: string): string {
  return createHash('md5').update(value).digest('hex');
}

/** sha1 hex of a string. */
export function sha1Hex(value: string): string {
  return createHash('sha1').update(value).digest('hex');
}

/** A document revision: `<n>-<32 hex>` as CouchDB writes them. */
export function nextRevision(previous: string | undefined, body: string): string {
  const n = previous ? Number(previous.split('-')[0]) + 1 : 1;
  return `${n}-${md5Hex(body)}`;
}

/**
 * The check of a write sent with `If-Match`: the revision it names must be the stored one, else
 * the 412 (cowboy_rest's `if_match/3`, on the document Kazoo's validation loaded).
 */
export function checkRevision(stored: string, ifMatch: string | undefined): void {
  if (ifMatch !== undefined && ifMatch !== stored) throw errors.preconditionFailed(`the document's revision is ${stored}, not ${ifMatch}`);
}
