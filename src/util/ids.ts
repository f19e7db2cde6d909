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
