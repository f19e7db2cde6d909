import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { readKeysetPage, type CompoundKey, type KeysetListing, type Page, type PageQuery } from '../../store/pages.js';
import { normaliseName } from '../accounts/service.js';

/** The document types Kazoo's search names (`t`); tel's indexes answer accounts and callflows. */
export const SEARCHABLE = ['account', 'user', 'callflow', 'device'] as const;

/** What accounts are searched by (`q`): Kazoo's `search/search_by_*` views of the accounts database. */
export const ACCOUNT_QUERIES = ['name', 'realm', 'id'] as const;
/** What an account's documents are searched by: Kazoo's defaults; tel's index answers a callflow's numbers. */
export const ACCOUNT_DB_QUERIES = ['name', 'number', 'name_and_number'] as const;

/** A row of an accounts search, as Kazoo's views emit it. */
export interface AccountHit {
  id: string;
  descendants_count: number;
  name: string;
  realm: string;
}

/** A row of a callflows search by number. */
export interface CallflowHit {
  id: string;
  name?: string;
  numbers: string[];
}

interface AccountRow {
  id: string;
  name: string;
  realm: string;
  k: string;
  descendants_count: number;
}

/**
 * The SQL expression an accounts search compares, by its `q`: Kazoo's keys (a name and a realm
 * lower case with only letters and digits; an id as it is), each an index of the accounts table.
 */
const ACCOUNT_KEY: Record<(typeof ACCOUNT_QUERIES)[number], string> = {
  name: 'a.name_norm',
  realm: "replace(replace(replace(a.realm, '.', ''), '-', ''), '_', '')",
  id: 'a.id',
};

/**
 * The value searched for as Kazoo compares it (`cb_modules_util:normalize_alphanum_name`): lower
 * case, letters and digits only (an id is one already).
 */
export function searchValue(v: string): string {
  return normaliseName(v);
}

/** The first string after every string that starts with `prefix` (none for the empty prefix). */
function afterPrefix(prefix: string): string | undefined {
  return prefix === '' ? undefined : prefix + '\u{10FFFF}';
}

/**
 * A page of the accounts below `ancestorId` (never itself: Kazoo's views key an account by each of
 * its ancestors) whose `q` starts with `value`, in the order of that key. Read from the index of
 * the key, each candidate's ancestry checked by the tree's index.
 */
export function searchAccounts(
  core: Core,
  ancestorId: string,
  q: (typeof ACCOUNT_QUERIES)[number],
  value: string,
  page: PageQuery<CompoundKey>,
): Page<AccountHit, CompoundKey> {
  const key = ACCOUNT_KEY[q];
  const where = [`${key} >= ?`, 'EXISTS (SELECT 1 FROM account_tree t WHERE t.account_id = a.id AND t.ancestor_id = ?)'];
  const args: string[] = [value, ancestorId];
  const end = afterPrefix(value);
  if (end !== undefined) {
    where.push(`${key} < ?`);
    args.push(end);
  }
  const listing: KeysetListing<AccountRow, AccountHit> = {
    select: `SELECT a.id, a.name, a.realm, ${key} AS k, (SELECT count(*) FROM account_tree d WHERE d.ancestor_id = a.id) AS descendants_count FROM accounts a`,
    where,
    args,
    order: [key, 'a.id'],
    keyOf: (r) => [r.k, r.id],
    item: (r) => ({ id: r.id, descendants_count: r.descendants_count, name: r.name, realm: r.realm }),
  };
  return readKeysetPage(core.db, listing, page);
}

interface CallflowRow {
  id: string;
  value: string;
  doc: string;
}

/** A page of an account's callflows one of whose numbers starts with `value`, by that number (a callflow once a number). */
export function searchCallflowsByNumber(core: Core, accountId: string, value: string, page: PageQuery<CompoundKey>): Page<CallflowHit, CompoundKey> {
  const where = ["k.account_id = ?", "k.field = 'numbers'", 'k.value >= ?'];
  const args: string[] = [accountId, value];
  const end = afterPrefix(value);
  if (end !== undefined) {
    where.push('k.value < ?');
    args.push(end);
  }
  const listing: KeysetListing<CallflowRow, CallflowHit> = {
    select: 'SELECT d.id, k.value, d.doc FROM doc_keys k JOIN docs d ON d.id = k.doc_id',
    where,
    args,
    order: ['k.value', 'k.doc_id'],
    keyOf: (r) => [r.value, r.id],
    item: (r) => {
      const doc = JSON.parse(r.doc) as { name?: string; numbers?: string[] };
      return { id: r.id, ...(doc.name !== undefined ? { name: doc.name } : {}), numbers: doc.numbers ?? [] };
    },
  };
  return readKeysetPage(core.db, listing, page);
}

/** A search's request: the type, what it is searched by, and the value (Kazoo's `t`, `q`, `v`). */
export interface SearchRequest {
  t?: string;
  q?: string;
  v?: string;
}

/** The queries a type may be searched by. */
export function queriesOf(t: string): readonly string[] {
  return t === 'account' ? ACCOUNT_QUERIES : ACCOUNT_DB_QUERIES;
}

/** Kazoo's checks of `t` and of one `q`, as `cb_search` makes them (400s naming the field). */
export function checkType(t: string | undefined, message = 'search needs a document type to search on'): string {
  if (t === undefined) throw errors.invalidField('t', 'required', message, { target: SEARCHABLE });
  return t;
}

/** A query name `t` may be searched by, or Kazoo's 400s (`q` missing, or not one of them). */
export function checkQuery(t: string, q: string | undefined): string {
  if (q === undefined) throw errors.invalidField('q', 'required', 'search needs a view to search in', { target: queriesOf(t) });
  if (!queriesOf(t).includes(q)) throw errors.invalidField('q', 'enum', 'value not found in enumerated list of values', { cause: q });
  return q;
}

/**
 * One search: accounts below the caller's own (`auth`), or one account's callflows by number.
 * What Kazoo's views would be asked for and tel keeps no index of (a user's name, a device's) is a
 * 400 on `q` naming what may be searched.
 */
export function search(
  core: Core,
  authAccountId: string,
  accountId: string,
  t: string,
  q: string,
  value: string,
  page: PageQuery<CompoundKey>,
): Page<AccountHit | CallflowHit, CompoundKey> {
  if (t === 'account') return searchAccounts(core, authAccountId, q as (typeof ACCOUNT_QUERIES)[number], q === 'id' ? value.toLowerCase() : searchValue(value), page);
  if (t === 'callflow' && q === 'number') return searchCallflowsByNumber(core, accountId, value, page);
  throw errors.invalidField('q', 'enum', 'tel keeps no index for this search', { cause: q, target: t === 'callflow' ? ['number'] : [] });
}
