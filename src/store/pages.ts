import type { SQLInputValue } from 'node:sqlite';
import { stmt, type Db } from './db.js';

/** What one filtered read may hold the event loop for (the reads then let other work run). */
const SCAN_TARGET_MS = 2;

/**
 * How many rows a filtered read looks at: as many as about SCAN_TARGET_MS of testing takes (rows
 * differ in size from one listing to the next), told by the CPU time the reads before took (a
 * busy machine's pauses do not shrink it).
 */
export class ScanBudget {
  rows = 256;

  /** Learns that a read of `rows` rows took `ms`. */
  took(ms: number): void {
    if (ms > SCAN_TARGET_MS && this.rows > 16) this.rows >>= 1;
    else if (ms < SCAN_TARGET_MS / 4 && this.rows < 8192) this.rows <<= 1;
  }
}

/** A listing's filters as its reads apply them: which items it keeps, and how many rows one read looks at. */
export interface RowFilter<T> {
  keeps(item: T): boolean;
  budget: ScanBudget;
}

/** Where a keyset listing starts and how much of it one page holds. */
export interface PageQuery<K, T = any> {
  /** items a page holds; undefined: all of them */
  pageSize?: number;
  /** the key the page starts at (inclusive), as a previous page's `nextStartKey` gave it */
  startKey?: K;
  /**
   * only the items it keeps: a read then looks at `filter.budget.rows` rows at most, and its page
   * may hold fewer items than asked though more may follow (`Page.incomplete`)
   */
  filter?: RowFilter<T>;
}

/** One page of a keyset listing. */
export interface Page<T, K> {
  items: T[];
  /** when paged: the key of the page's start (the one asked for, else its first item's) */
  startKey?: K;
  /** when paged and more follow: where the next page starts */
  nextStartKey?: K;
  /** a filtered read stopped looking before the page was full: read on from `nextStartKey` */
  incomplete?: boolean;
}

/**
 * The SQL `LIMIT` of a page's read: one more row than the page holds, which shows whether a next
 * page exists (-1: all); for a filtered read, one more than the rows it may look at.
 */
export function pageLimit(q: PageQuery<unknown>): number {
  if (q.filter) return q.filter.budget.rows + 1;
  return q.pageSize === undefined ? -1 : q.pageSize + 1;
}

/**
 * Cuts rows read with `pageLimit(q)`, in listing order, into a page of their `item`s keyed by
 * `keyOf`; a filtered read keeps the items its filter keeps, looking at its budget of rows.
 */
export function keysetPage<R, K, T = R>(rows: R[], q: PageQuery<K, T>, keyOf: (row: R) => K, item: (row: R) => T = (r) => r as unknown as T): Page<T, K> {
  if (q.filter) return filteredPage(rows, q, q.filter, keyOf, item);
  if (q.pageSize === undefined) return { items: rows.map(item) };
  const kept = rows.length > q.pageSize ? rows.slice(0, q.pageSize) : rows;
  const page: Page<T, K> = { items: kept.map(item) };
  if (kept.length > 0) page.startKey = q.startKey ?? keyOf(kept[0]);
  if (rows.length > q.pageSize) page.nextStartKey = keyOf(rows[q.pageSize]);
  return page;
}

/**
 * A filtered read's page: the items kept among the rows looked at, until the page is full (the
 * next kept row's key then starts the next page). A page full when the rows run out starts the
 * next at the first row not looked at, without looking further (Kazoo's filtered views answer
 * such pages too); one not full is `incomplete` when rows remain.
 */
function filteredPage<R, K, T>(rows: R[], q: PageQuery<K, T>, filter: RowFilter<T>, keyOf: (row: R) => K, item: (row: R) => T): Page<T, K> {
  const wanted = q.pageSize ?? Infinity;
  const looked = Math.min(rows.length, filter.budget.rows);
  const items: T[] = [];
  let first: R | undefined;
  for (let i = 0; i < looked; i++) {
    const it = item(rows[i]);
    if (!filter.keeps(it)) continue;
    if (items.length === wanted) return { items, startKey: q.startKey ?? keyOf(first!), nextStartKey: keyOf(rows[i]) };
    first ??= rows[i];
    items.push(it);
  }
  const page: Page<T, K> = { items };
  const start = q.startKey ?? (first === undefined ? undefined : keyOf(first));
  if (start !== undefined) page.startKey = start;
  if (rows.length > looked) {
    page.nextStartKey = keyOf(rows[looked]);
    if (items.length < wanted) page.incomplete = true;
  }
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
export interface KeysetListing<T, I = T> {
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
  /** the page's item for a row (default: the row) */
  item?(row: T): I;
}

/** The SQL of one page of a keyset listing, and its arguments. */
function keysetSql<T, I>(l: KeysetListing<T, I>, q: PageQuery<CompoundKey>): { sql: string; args: SQLInputValue[] } {
  const where = [...l.where];
  const args = [...l.args];
  if (q.startKey !== undefined) {
    where.push(`(${l.order.join(', ')}) ${l.descending ? '<=' : '>='} (${l.order.map(() => '?').join(', ')})`);
    args.push(...q.startKey);
  }
  const dir = l.descending ? ' DESC' : '';
  const sql = `${l.select}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${l.order.map((c) => c + dir).join(', ')} LIMIT ?`;
  args.push(pageLimit(q));
  return { sql, args };
}

/** Reads one page of a keyset listing. */
export function readKeysetPage<T, I = T>(db: Db, l: KeysetListing<T, I>, q: PageQuery<CompoundKey, I>): Page<I, CompoundKey> {
  const { sql, args } = keysetSql(l, q);
  const rows = stmt(db, sql).all(...args) as unknown as T[];
  return keysetPage(rows, q, l.keyOf, l.item?.bind(l));
}

/** Rows a chunk of a whole listing (`paginate=false`, a CLI's `--limit 0`) holds by default. */
export const CHUNK_ROWS = 200;

/**
 * Every row of a keyset listing from `startKey` on, as chunks of pages read one after the other:
 * each chunk is one short query, so no read holds the file between chunks and memory holds one
 * chunk at a time, whatever the row count. `first`, when given, is the first chunk already read
 * (a caller that must see the listing's errors before it starts answering). A filtered read's
 * chunk is yielded even when it keeps nothing, so that a consumer can let other work run
 * between chunks however few rows the filter keeps.
 */
export function* everyPage<T, K>(
  read: (q: PageQuery<K, T>) => Page<T, K>,
  opts: { startKey?: K; chunkRows?: number; first?: Page<T, K>; filter?: RowFilter<T> } = {},
): Generator<T[], void, undefined> {
  const pageSize = opts.chunkRows ?? CHUNK_ROWS;
  const { filter } = opts;
  const next = (startKey: K | undefined) => (filter ? timedRead(read, { pageSize, startKey, filter }) : read({ pageSize, startKey }));
  let page = opts.first ?? next(opts.startKey);
  for (;;) {
    if (page.items.length > 0 || filter) yield page.items;
    if (page.nextStartKey === undefined) return;
    page = next(page.nextStartKey);
  }
}

/**
 * A filtered page read to the end: read, and read on from where the last read stopped looking
 * until the page is full or the listing ends. A generator: it yields after each read that leaves
 * the page incomplete (a server lets other work run there; the CLI goes straight on), and returns
 * the page.
 */
export function* fillPage<T, K>(
  read: (q: PageQuery<K, T>) => Page<T, K>,
  q: PageQuery<K, T> & { pageSize: number; filter: RowFilter<T> },
): Generator<void, Page<T, K>, undefined> {
  let page = timedRead(read, q);
  if (!page.incomplete) return page;
  const items = [...page.items];
  let startKey = q.startKey ?? page.startKey;
  while (page.incomplete) {
    yield;
    page = timedRead(read, { ...q, pageSize: q.pageSize - items.length, startKey: page.nextStartKey });
    startKey ??= page.startKey;
    items.push(...page.items);
  }
  const whole: Page<T, K> = { items };
  if (startKey !== undefined) whole.startKey = startKey;
  if (page.nextStartKey !== undefined) whole.nextStartKey = page.nextStartKey;
  return whole;
}

/** The page `fillPage` reads, read at once (where nothing else waits: the CLI). */
export function filledPageNow<T, K>(read: (q: PageQuery<K, T>) => Page<T, K>, q: PageQuery<K, T> & { pageSize: number; filter: RowFilter<T> }): Page<T, K> {
  const reads = fillPage(read, q);
  for (;;) {
    const r = reads.next();
    if (r.done) return r.value;
  }
}

/** A filtered read, the CPU time it took told to the filter's budget. */
export function timedRead<T, K>(read: (q: PageQuery<K, T>) => Page<T, K>, q: PageQuery<K, T> & { filter: RowFilter<T> }): Page<T, K> {
  const started = process.threadCpuUsage();
  const page = read(q);
  const spent = process.threadCpuUsage(started);
  q.filter.budget.took((spent.user + spent.system) / 1000);
  return page;
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
