import type { SQLInputValue } from 'node:sqlite';
import { stmt, type Db } from './db.js';

/** Where a keyset listing starts and how much of it one page holds. */
export interface PageQuery<K> {
  /** items a page holds; undefined: all of them */
  pageSize?: number;
  /** the key the page starts at (inclusive), as a previous page's `nextStartKey` gave it */
  startKey?: K;
}

/** One page of a keyset listing. */
export interface Page<T, K> {
  items: T[];
  /** when paged: the key of the page's start (the one asked for, else its first item's) */
  startKey?: K;
  /** when paged and more follow: where the next page starts */
  nextStartKey?: K;
}

/** The SQL `LIMIT` that also shows whether a next page exists: one more row than the page holds (-1: all). */
export function pageLimit(pageSize: number | undefined): number {
  return pageSize === undefined ? -1 : pageSize + 1;
}

/** Cuts rows read with `pageLimit(q.pageSize)`, in listing order, into a page keyed by `keyOf`. */
export function keysetPage<T, K>(rows: T[], q: PageQuery<K>, keyOf: (row: T) => K): Page<T, K> {
  if (q.pageSize === undefined) return { items: rows };
  const items = rows.length > q.pageSize ? rows.slice(0, q.pageSize) : rows;
  const page: Page<T, K> = { items };
  if (items.length > 0) page.startKey = q.startKey ?? keyOf(items[0]);
  if (rows.length > q.pageSize) page.nextStartKey = keyOf(rows[q.pageSize]);
  return page;
}

/** A key of several columns (`[created, id]`): the values of a listing's order columns for one row. */
export type CompoundKey = SQLInputValue[];

/**
 * A listing read one page at a time from an index in its order: `SELECT … FROM … WHERE …` (the
 * filters), ordered by `order` (columns ending with a unique one, matching an index after the
 * filters' equalities), starting at a key of those columns. No listing reads more rows than the
 * page it answers, and the SQL is the same text for every page (prepared once).
 */
export interface KeysetListing<T> {
  /** `SELECT … FROM …` */
  select: string;
  /** conditions joined with AND (the filters) */
  where: string[];
  args: SQLInputValue[];
  /** the order's columns (`a.created`, `a.id`) */
  order: string[];
  descending?: boolean;
  /** the key of a row: its values of the order's columns */
  keyOf(row: T): CompoundKey;
}

/** The SQL of one page of a keyset listing, and its arguments. */
function keysetSql<T>(l: KeysetListing<T>, q: PageQuery<CompoundKey>): { sql: string; args: SQLInputValue[] } {
  const where = [...l.where];
  const args = [...l.args];
  if (q.startKey !== undefined) {
    where.push(`(${l.order.join(', ')}) ${l.descending ? '<=' : '>='} (${l.order.map(() => '?').join(', ')})`);
    args.push(...q.startKey);
  }
  const dir = l.descending ? ' DESC' : '';
  const sql = `${l.select}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${l.order.map((c) => c + dir).join(', ')} LIMIT ?`;
  args.push(pageLimit(q.pageSize));
  return { sql, args };
}

/** Reads one page of a keyset listing. */
export function readKeysetPage<T>(db: Db, l: KeysetListing<T>, q: PageQuery<CompoundKey>): Page<T, CompoundKey> {
  const { sql, args } = keysetSql(l, q);
  const rows = stmt(db, sql).all(...args) as unknown as T[];
  return keysetPage(rows, q, l.keyOf);
}

/** Rows a chunk of a whole listing (`paginate=false`, a CLI's `--limit 0`) holds by default. */
export const CHUNK_ROWS = 200;

/**
 * Every row of a keyset listing from `startKey` on, as chunks of pages read one after the other:
 * each chunk is one short query, so no read holds the file between chunks and memory holds one
 * chunk at a time, whatever the row count. `first`, when given, is the first chunk already read
 * (a caller that must see the listing's errors before it starts answering).
 */
export function* everyPage<T, K>(
  read: (q: PageQuery<K>) => Page<T, K>,
  opts: { startKey?: K; chunkRows?: number; first?: Page<T, K> } = {},
): Generator<T[], void, undefined> {
  const pageSize = opts.chunkRows ?? CHUNK_ROWS;
  let page = opts.first ?? read({ pageSize, startKey: opts.startKey });
  for (;;) {
    if (page.items.length > 0) yield page.items;
    if (page.nextStartKey === undefined) return;
    page = read({ pageSize, startKey: page.nextStartKey });
  }
}

/**
 * The conditions of a listing's time window on `column` (the first of its order) for the page
 * that starts at `startKey`: SQLite ranges an index on one bound of a column, so where the key
 * (a row value, see keysetSql) is the tighter bound on the page's side of the window, the window
 * leaves that side to it — else rows sharing the key's time, before it, would be read and skipped.
 */
export function windowConditions(
  column: string,
  from: number,
  to: number,
  startKey: CompoundKey | undefined,
  descending: boolean,
): { where: string[]; args: number[] } {
  const at = startKey === undefined ? undefined : Number(startKey[0]);
  const where: string[] = [];
  const args: number[] = [];
  if (descending || at === undefined || at < from) (where.push(`${column} >= ?`), args.push(from));
  if (!descending || at === undefined || at > to) (where.push(`${column} <= ?`), args.push(to));
  return { where, args };
}
