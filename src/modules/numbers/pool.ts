import type { Core } from '../../core-type.js';
import { stmt, transaction } from '../../store/db.js';
import { keysetPage, pageLimit, type Page, type PageQuery } from '../../store/pages.js';
import { errors } from '../../errors.js';
import { getAccount, resellerIdOf } from '../accounts/service.js';
import { SUBTREE_IDS_SQL } from '../accounts/tree-index.js';
import { toE164 } from './normalize.js';

/**
 * The simulated carrier's pool: numbers it offers to an account (a reseller, the master account)
 * and to the accounts that account resells to, as Kazoo's `knm_managed` carrier keeps them. A
 * search finds them, an activation moves one into the buyer's inventory, a release brings it back.
 */

/** One number of the pool. */
export interface PoolRow {
  number: string;
  /** the account the carrier offers it to */
  account_id: string;
  created: number;
}

/** The most numbers one search answers (Kazoo's `number_manager` `maximum_search_quantity` default). */
export const MAX_SEARCH_QUANTITY = 500;

/** The most numbers `tel numbers pool add --count` adds at once. */
export const MAX_POOL_RANGE = 100_000;

/** What adding numbers to a pool did: those added, and those refused with why. */
export interface PoolAddResult {
  added: string[];
  refused: Record<string, string>;
}

/**
 * Adds numbers to the pool an account is offered (written as typed: normalised to E.164); a number
 * already in a pool or an inventory is refused, and the others added, in batches of one statement.
 */
export function addToPool(core: Core, accountId: string, numbers: readonly string[]): PoolAddResult {
  getAccount(core, accountId);
  const refused: Record<string, string> = {};
  const wanted = new Set<string>();
  for (const n of numbers) {
    const e164 = toE164(n);
    if (!e164) refused[n] = 'not an E.164 number';
    else if (wanted.has(e164)) refused[n] = 'given twice';
    else wanted.add(e164);
  }
  const list = JSON.stringify([...wanted]);
  return transaction(core.db, () => {
    const taken = stmt(
      core.db,
      `SELECT value AS number, EXISTS (SELECT 1 FROM phone_numbers p WHERE p.number = value) AS owned
       FROM json_each(?) WHERE value IN (SELECT number FROM number_pool) OR value IN (SELECT number FROM phone_numbers)`,
    ).all(list) as { number: string; owned: number }[];
    for (const t of taken) {
      refused[t.number] = t.owned ? 'an account holds it' : 'already in a pool';
      wanted.delete(t.number);
    }
    const added = [...wanted];
    stmt(core.db, 'INSERT INTO number_pool (number, account_id, created) SELECT value, ?, ? FROM json_each(?)').run(accountId, Date.now(), JSON.stringify(added));
    return { added, refused };
  });
}

/** `count` numbers from `first` on (`+14155550100`, 3 → …100, …101, …102), as `tel numbers pool add --count` adds them. */
export function numberRange(first: string, count: number): string[] {
  const e164 = toE164(first);
  if (!e164) throw errors.invalidField('number', 'pattern', `${first} is not an E.164 number`);
  if (!Number.isInteger(count) || count < 1 || count > MAX_POOL_RANGE) throw errors.invalidField('count', 'maximum', `a range holds 1 to ${MAX_POOL_RANGE} numbers`);
  const digits = e164.slice(1);
  const start = BigInt(digits);
  const out: string[] = [];
  for (let i = 0n; i < BigInt(count); i++) {
    const next = (start + i).toString().padStart(digits.length, '0');
    if (next.length > digits.length) break;
    out.push(`+${next}`);
  }
  return out;
}

/** Removes numbers from the pool (those that are not there are left out of the answer). */
export function removeFromPool(core: Core, numbers: readonly string[]): string[] {
  const list = JSON.stringify(numbers.map((n) => toE164(n) ?? n));
  return transaction(core.db, () => {
    const rows = stmt(core.db, 'SELECT number FROM number_pool WHERE number IN (SELECT value FROM json_each(?))').all(list) as { number: string }[];
    stmt(core.db, 'DELETE FROM number_pool WHERE number IN (SELECT value FROM json_each(?))').run(list);
    return rows.map((r) => r.number);
  });
}

/** The numbers an account bought from pools (but its own) back in them, as it is deleted. */
export function returnToPools(core: Core, accountId: string): void {
  stmt(
    core.db,
    `INSERT OR REPLACE INTO number_pool (number, account_id, created)
     SELECT number, pool_id, created FROM phone_numbers WHERE account_id = ?1 AND pool_id IS NOT NULL AND pool_id != ?1`,
  ).run(accountId);
}

/** A page of the pool an account is offered (all pools without one), in E.164 order. */
export function listPool(core: Core, q: PageQuery<string> & { accountId?: string; prefix?: string } = {}): Page<PoolRow, string> {
  const start = q.startKey && q.prefix && q.startKey < q.prefix ? q.prefix : (q.startKey ?? q.prefix ?? '');
  const end = q.prefix ? `${q.prefix}~` : '~';
  const rows = (
    q.accountId
      ? stmt(core.db, 'SELECT * FROM number_pool WHERE account_id = ? AND number >= ? AND number < ? ORDER BY number LIMIT ?').all(q.accountId, start, end, pageLimit(q))
      : stmt(core.db, 'SELECT * FROM number_pool WHERE number >= ? AND number < ? ORDER BY number LIMIT ?').all(start, end, pageLimit(q))
  ) as unknown as PoolRow[];
  return keysetPage(rows, q, (r) => r.number);
}

/**
 * The numbers of the pools of an account and the accounts below it, by pool, as a lab file lists
 * them: those still offered and those accounts bought from them (they stay the pool's: released,
 * they come back to it).
 */
export function poolNumbersUnder(core: Core, accountId: string): Map<string, string[]> {
  const rows = stmt(
    core.db,
    `SELECT number, account_id FROM number_pool WHERE account_id IN (${SUBTREE_IDS_SQL})
     UNION ALL SELECT number, pool_id FROM phone_numbers WHERE pool_id IN (${SUBTREE_IDS_SQL})
     ORDER BY 2, 1`,
  ).all(accountId) as { number: string; account_id: string }[];
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.account_id);
    if (list) list.push(r.number);
    else out.set(r.account_id, [r.number]);
  }
  return out;
}

/** Takes a number out of a pool's stock, or, once an account bought it, out of the pool it would go back to. */
export function dropFromPool(core: Core, accountId: string, number: string): void {
  transaction(core.db, () => {
    stmt(core.db, 'DELETE FROM number_pool WHERE number = ? AND account_id = ?').run(number, accountId);
    stmt(core.db, 'UPDATE phone_numbers SET pool_id = NULL WHERE number = ? AND pool_id = ?').run(number, accountId);
  });
}

/** The pool row of a number, if the pool holds it. */
export function findPoolNumber(core: Core, number: string): PoolRow | undefined {
  return stmt(core.db, 'SELECT * FROM number_pool WHERE number = ?').get(number) as PoolRow | undefined;
}

/**
 * The pools an account may search and buy from, in the order searched (Kazoo's `knm_managed`):
 * its own, then its reseller's.
 */
export function poolsOf(core: Core, accountId: string): string[] {
  const reseller = resellerIdOf(core, getAccount(core, accountId));
  return reseller === accountId ? [accountId] : [accountId, reseller];
}

/**
 * Numbers a search finds (`GET phone_numbers?prefix=…&quantity=…&offset=…`): up to `quantity` of
 * the first pool that has any starting with the E.164 prefix, after skipping `offset` of them.
 */
export function searchPool(core: Core, pools: readonly string[], e164Prefix: string, quantity: number, offset: number): string[] {
  const end = `${e164Prefix}~`;
  for (const pool of pools) {
    const any = stmt(core.db, 'SELECT 1 FROM number_pool WHERE account_id = ? AND number >= ? AND number < ? LIMIT 1').get(pool, e164Prefix, end);
    if (!any) continue;
    const rows = stmt(core.db, 'SELECT number FROM number_pool WHERE account_id = ? AND number >= ? AND number < ? ORDER BY number LIMIT ? OFFSET ?')
      .all(pool, e164Prefix, end, Math.min(quantity, MAX_SEARCH_QUANTITY), offset) as { number: string }[];
    return rows.map((r) => r.number);
  }
  return [];
}

/**
 * The international dialling code of a country (ISO 3166 alpha-2), as Kazoo's `knm_util:prefix_for_country`
 * writes it, for the countries a lab's numbers are most often in; a search's `prefix` is read after it.
 */
const DIAL_CODES: Readonly<Record<string, string>> = {
  US: '+1', CA: '+1', PR: '+1', GB: '+44', IE: '+353', FR: '+33', DE: '+49', ES: '+34', IT: '+39', PT: '+351',
  NL: '+31', BE: '+32', LU: '+352', CH: '+41', AT: '+43', DK: '+45', SE: '+46', NO: '+47', FI: '+358', PL: '+48',
  CZ: '+420', GR: '+30', RU: '+7', UA: '+380', TR: '+90', IL: '+972', AE: '+971', ZA: '+27', NG: '+234', EG: '+20',
  IN: '+91', CN: '+86', JP: '+81', KR: '+82', SG: '+65', HK: '+852', AU: '+61', NZ: '+64', MX: '+52', BR: '+55',
  AR: '+54', CL: '+56', CO: '+57', PE: '+51',
};

/** The dialling code of a country, undefined for one tel does not know. */
export function dialCodeOf(country: string): string | undefined {
  return DIAL_CODES[country.toUpperCase()];
}
