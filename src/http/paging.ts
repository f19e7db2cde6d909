import { jsonArrayPieces, jsonTooDeep } from '../util/json.js';
import { errors } from '../errors.js';
import { CHUNK_ROWS, everyPage, fillPage, ScanBudget, timedRead, type CompoundKey, type Page, type PageQuery, type RowFilter } from '../store/pages.js';
import { boundedWindow, gregorianWindow, type TimeWindow } from '../util/time.js';
import { docFilterOf, onlyTimeBounds, type DocFilter } from '../util/doc-filter.js';
import { nextTurn } from '../util/timers.js';
import type { EnvelopeExtras } from './envelope.js';
import type { QueryParam, Reply } from './router.js';

/** Kazoo's default page size. */
export const DEFAULT_PAGE_SIZE = 50;

/** The largest `page_size` a listing answers (`paginate=false` lists everything). */
export const MAX_PAGE_SIZE = 1000;

/**
 * Page size from `?page_size=` (absent → default); undefined when `paginate=false`. Anything but
 * a whole number from 1 to MAX_PAGE_SIZE is a 400 (`1e300` must not reach SQL as a LIMIT).
 */
export function pageSizeOf(query: URLSearchParams): number | undefined {
  if (query.get('paginate') === 'false') return undefined;
  const raw = query.get('page_size');
  if (raw === null || raw === '') return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,7}$/.test(raw.trim())) {
    throw errors.invalidField('page_size', 'type', 'Value did not match type(s): integer', { value: raw, target: 'integer' });
  }
  const n = Number(raw);
  if (n < 1) throw errors.invalidField('page_size', 'minimum', 'Value must be at least 1', { value: n, target: 1 });
  if (n > MAX_PAGE_SIZE) {
    throw errors.invalidField('page_size', 'maximum', `Value must be at most ${MAX_PAGE_SIZE}`, { value: n, target: MAX_PAGE_SIZE });
  }
  return n;
}

/**
 * Kazoo's filters of a listing (crossbar_filter), a family of query parameters, combined by AND,
 * each testing the listed document whole (its private `pvt_created`, `pvt_modified`, … too).
 */
export const FILTERS_QUERY: QueryParam = {
  name: 'filters',
  family: true,
  description:
    "Kazoo's filters: `filter_KEY=VALUE` (the value at KEY, a dotted path, is VALUE or, VALUE being a JSON list, one of its strings), `filter_not_KEY=VALUE`, `has_key=KEY`, `key_missing=KEY`, `has_value=KEY` (present and not empty), `value_missing=KEY`, `created_from`, `created_to`, `modified_from`, `modified_to` (Gregorian seconds); combined by AND",
  schema: {
    type: 'object',
    properties: {
      has_key: { type: 'string' },
      key_missing: { type: 'string' },
      has_value: { type: 'string' },
      value_missing: { type: 'string' },
      created_from: { type: 'integer' },
      created_to: { type: 'integer' },
      modified_from: { type: 'integer' },
      modified_to: { type: 'integer' },
    },
    patternProperties: { '^filter_(not_)?.+$': { type: 'string' } },
  },
};

/** `accept=csv`: a GET's data as CSV, as `Accept: text/csv` asks for it. */
export const CSV_QUERY: QueryParam = {
  name: 'accept',
  description: "`csv`: the data as Kazoo's CSV (`text/csv`, a header row, a row an item, nested keys joined by `_`), as `Accept: text/csv` asks for it",
  schema: { type: 'string', enum: ['csv'] },
};

/**
 * The paging parameters of a listing: `start_key` is the `next_start_key` of the page before, an
 * opaque key (the values of the listing's order for the row the page starts at) unless `startKey`
 * types it otherwise; and its filters.
 */
export function pagingQuery(startKey: QueryParam['schema'] = { type: 'string' }): QueryParam[] {
  return [
    { name: 'page_size', description: `items a page holds (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'start_key', description: 'where the page starts: the `next_start_key` of the page before (opaque)', schema: startKey },
    { name: 'paginate', description: '`false` lists everything, in one streamed answer (without paging keys)', schema: { type: 'boolean' } },
    FILTERS_QUERY,
    CSV_QUERY,
  ];
}

/**
 * `ascending` and `descending`: which way a listing runs, `natural` by default (a descending order
 * when `descendingByDefault`), `reversed` the other way round.
 */
export function orderQuery(natural: string, reversed: string, descendingByDefault = false): QueryParam[] {
  return [
    { name: 'ascending', description: `\`${descendingByDefault}\` lists ${reversed} (the default is ${natural})`, schema: { type: 'boolean' } },
    { name: 'descending', description: `\`${!descendingByDefault}\` lists ${reversed}`, schema: { type: 'boolean' } },
  ];
}

/** The paging and ordering parameters of a listing in creation order (`descending=true`: newest first). */
export const LISTING_QUERY: readonly QueryParam[] = [...pagingQuery(), ...orderQuery('oldest first', 'newest first')];

/** The paging and ordering parameters of a listing by name, then id (children, descendants, siblings). */
export const BY_NAME_QUERY: readonly QueryParam[] = [...pagingQuery(), ...orderQuery('by name, A to Z', 'by name, Z to A')];

/** The paging and ordering parameters of a listing of ancestors (`parents`, `tree`): root first unless descending. */
export const ANCESTORS_QUERY: readonly QueryParam[] = [...pagingQuery(), ...orderQuery('root first', 'the parent first')];

/** The paging and ordering parameters of a log listed newest first (`ascending=true`: oldest first). */
export const NEWEST_FIRST_QUERY: readonly QueryParam[] = [...pagingQuery(), ...orderQuery('newest first', 'oldest first', true)];

/** A time-ranged listing's window: `created_from` and `created_to` (read from the index, before the other filters). */
export const TIME_WINDOW_QUERY: readonly QueryParam[] = [
  { name: 'created_from', description: 'only what was created at or after (Gregorian seconds)', schema: { type: 'integer', minimum: 0 } },
  { name: 'created_to', description: 'only what was created at or before (Gregorian seconds)', schema: { type: 'integer', minimum: 0 } },
];

/** An attempts listing's parameters: the time window and paging (attempts are listed newest first). */
export const ATTEMPTS_QUERY: readonly QueryParam[] = [...TIME_WINDOW_QUERY, ...pagingQuery()];

/** Encodes an opaque paging key. */
export function encodeStartKey(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Decodes `?start_key=`; a key that is not ours is a 400. */
export function decodeStartKey(raw: string | null): unknown {
  if (raw === null || raw === '') return undefined;
  try {
    const text = Buffer.from(raw, 'base64url').toString('utf8');
    if (!jsonTooDeep(text)) return JSON.parse(text);
  } catch {
    // refused below
  }
  throw errors.invalidField('start_key', 'invalid', 'start_key is not valid', { value: raw });
}

/**
 * Kazoo's filters of a listing's query (`filter_KEY`, `filter_not_KEY`, `has_key`, `key_missing`,
 * `has_value`, `value_missing`, `created_from` … `modified_to`), or undefined when it has none.
 */
export function filterOf(query: URLSearchParams): DocFilter | undefined {
  return query.size === 0 ? undefined : docFilterOf(query);
}

/** The document a listing's filters test for one of its items: the item as answered, unless a kind shows more. */
export type WholeDoc<T> = (item: T) => Record<string, unknown>;

/**
 * A listing's filters as its reads apply them, over each item's `whole` document; undefined when
 * the query has none, or (a listing of a time range, `timeRange`) none but the time bounds.
 */
export function rowFilterOf<T>(query: URLSearchParams, whole: WholeDoc<T>, timeRange = false): RowFilter<T> | undefined {
  if (timeRange && onlyTimeBounds(query)) return undefined;
  const f = filterOf(query);
  return f && { keeps: (item) => f.test(whole(item)), budget: new ScanBudget() };
}

/** The items of a list that lives in memory that the query's filters keep, over `whole` of each (the item itself by default). */
export function filtered<T>(items: T[], query: URLSearchParams, whole: WholeDoc<T> = (item) => item as Record<string, unknown>): T[] {
  const f = filterOf(query);
  return f ? items.filter((item) => f.test(whole(item))) : items;
}

/**
 * Pages a list that lives in memory (hook types, samples), already in listing order, after the
 * query's filters (see `filtered`): `start_key` is the index to start at. Listings of stored rows
 * page in SQL instead (`listingReply`).
 */
export function paginate<T>(all: T[], query: URLSearchParams, whole?: WholeDoc<T>): { page: T[]; extras: EnvelopeExtras } {
  const items = filtered(all, query, whole);
  const size = pageSizeOf(query);
  if (size === undefined) return { page: items, extras: {} };
  const start = decodeStartKey(query.get('start_key'));
  const from = typeof start === 'number' && start >= 0 ? start : 0;
  const page = items.slice(from, from + size);
  const extras: EnvelopeExtras = { page_size: page.length, start_key: encodeStartKey(from) };
  if (from + size < items.length) extras.next_start_key = encodeStartKey(from + size);
  return { page, extras };
}

/** True for `?descending=true` / `?ascending=false` (listings are ascending by default here). */
export function descendingOf(query: URLSearchParams): boolean {
  return query.get('descending') === 'true' || query.get('ascending') === 'false';
}

/** How a listing's paging key is read from `?start_key=` and written in the envelope. */
export interface KeyCodec<K> {
  read(query: URLSearchParams): K | undefined;
  show(key: K): unknown;
}

/**
 * An opaque key (URL-safe base64 of its JSON, as Kazoo's keys are opaque) of a listing ordered by
 * columns of these types: `[created, id]` is `opaqueKey('number', 'string')`. Anything else sent
 * back is a 400.
 */
export function opaqueKey(...types: ('string' | 'number')[]): KeyCodec<CompoundKey> {
  return {
    read(query) {
      const key = decodeStartKey(query.get('start_key'));
      if (key === undefined) return undefined;
      if (Array.isArray(key) && key.length === types.length && key.every((v, i) => typeof v === types[i])) return key as CompoundKey;
      throw errors.invalidField('start_key', 'invalid', 'start_key is not valid', { value: query.get('start_key') });
    },
    show: encodeStartKey,
  };
}

/** The key of listings in creation order: `[created, id]`. */
export const CREATED_KEY = opaqueKey('number', 'string');

/** How a listing answers beyond its reads. */
export interface ListingOptions<T> {
  /** the document the query's filters test for an item (default: the item as answered) */
  whole?: WholeDoc<T>;
  /** rows a chunk of a whole listing (`paginate=false`) holds */
  chunkRows?: number;
  /** the listing reads `created_from`/`created_to` as its range (Kazoo's ranged views): time bounds alone filter nothing more */
  timeRange?: boolean;
  /** the rows answered for a page's items, made a page at a time (a row that reads more than its item); default: `json` of each */
  rows?: (items: T[]) => unknown[];
}

/**
 * A listing's answer: one page read by `read` (with `page_size`, `start_key`, `next_start_key`),
 * or, for `paginate=false`, every row from `start_key` on, read and written in chunks (see
 * StreamedData), without paging keys (as Kazoo answers it). Either way the first read happens
 * here, so a listing's errors (an unknown hook) are answered as errors. With filters in the query,
 * the reads keep the items they keep, and a page is read on until full, letting other requests
 * run between reads (a promise then).
 */
export function listingReply<T, K>(
  query: URLSearchParams,
  read: (q: PageQuery<K>) => Page<T, K>,
  json: (row: T) => unknown,
  keys: KeyCodec<K>,
  opts: ListingOptions<T> = {},
): Reply | Promise<Reply> {
  const q = pageQueryOf(query, keys.read);
  const filterOfQuery = () => rowFilterOf(query, opts.whole ?? (json as WholeDoc<T>), opts.timeRange);
  const filter = filterOfQuery();
  const { rows: rowsOf = (items: T[]) => items.map(json) } = opts;
  if (q.pageSize !== undefined) {
    const answer = (page: Page<T, K>): Reply => ({ data: rowsOf(page.items), extras: pageExtras(page, keys.show) });
    if (!filter) return answer(read(q));
    const page = filledPage(read, { ...q, pageSize: q.pageSize, filter });
    return page instanceof Promise ? page.then(answer) : answer(page);
  }
  const chunkRows = opts.chunkRows ?? CHUNK_ROWS;
  const first = filter ? timedRead(read, { pageSize: chunkRows, startKey: q.startKey, filter }) : read({ pageSize: chunkRows, startKey: q.startKey });
  // the rows anew at each reading (a CSV answer reads them twice), each with a filter of its own
  const asRows = function* (chunks: Iterable<T[]>): Generator<unknown[]> {
    // a filtered read's empty chunk stays one: a turn of the event loop between reads
    for (const items of chunks) yield items.length === 0 ? [] : rowsOf(items);
  };
  const rows = () => asRows(everyPage(read, { startKey: q.startKey, chunkRows, filter: filterOfQuery() }));
  return { stream: { pieces: jsonArrayPieces(asRows(everyPage(read, { first, chunkRows, filter })), (row) => row), rows } };
}

/**
 * A filtered page (`fillPage`), letting other work run between its reads (each holds the event
 * loop for about the filter's budget). The first read happens at once (a listing's errors are
 * answered as errors); a promise only when more reads follow.
 */
export function filledPage<T, K>(
  read: (q: PageQuery<K, T>) => Page<T, K>,
  q: PageQuery<K, T> & { pageSize: number; filter: RowFilter<T> },
): Page<T, K> | Promise<Page<T, K>> {
  const reads = fillPage(read, q);
  const first = reads.next();
  if (first.done) return first.value;
  return (async () => {
    for (;;) {
      await nextTurn();
      const r = reads.next();
      if (r.done) return r.value;
    }
  })();
}

/** A whole-number query parameter (Gregorian seconds, a paging key); a 400 for anything else. */
export function integerParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw errors.invalidField(name, 'type', 'Value did not match type(s): integer', { target: 'integer', value: raw });
  }
  return n;
}

/** `created_from` / `created_to` (Gregorian seconds) of a time-ranged listing. */
export function timeWindowOf(query: URLSearchParams): TimeWindow {
  return gregorianWindow(integerParam(query, 'created_from'), integerParam(query, 'created_to'));
}

/**
 * `created_from` / `created_to` of a listing Kazoo bounds (its per-month databases): the last
 * `maxRangeSeconds` by default, and never a wider window (see boundedWindow).
 */
export function boundedWindowOf(query: URLSearchParams, maxRangeSeconds: number): Required<TimeWindow> {
  return boundedWindow(integerParam(query, 'created_from'), integerParam(query, 'created_to'), maxRangeSeconds);
}

/** The parameters of a listing Kazoo bounds in time: the window (the last month by default), paging, newest first. */
export const BOUNDED_QUERY: readonly QueryParam[] = [
  { name: 'created_from', description: 'only what was created at or after (Gregorian seconds; default: `maximum_range` before `created_to`)', schema: { type: 'integer', minimum: 0 } },
  { name: 'created_to', description: 'only what was created at or before (Gregorian seconds; default: now)', schema: { type: 'integer', minimum: 0 } },
  ...NEWEST_FIRST_QUERY,
];

/** Newest first unless `ascending=true` or `descending=false` (Kazoo's time-ranged views). */
export function newestFirst(query: URLSearchParams): boolean {
  return !(query.get('ascending') === 'true' || query.get('descending') === 'false');
}

/** `page_size` and `start_key` of a keyset listing, the key read by `readKey`. */
export function pageQueryOf<K>(query: URLSearchParams, readKey: (query: URLSearchParams) => K | undefined): PageQuery<K> {
  return { pageSize: pageSizeOf(query), startKey: readKey(query) };
}

/** The envelope keys of a keyset page: `page_size`, and when paged `start_key` / `next_start_key` (as `show` writes them). */
export function pageExtras<T, K>(page: Page<T, K>, show: (key: K) => unknown = (k) => k): EnvelopeExtras {
  const extras: EnvelopeExtras = { page_size: page.items.length };
  if (page.startKey !== undefined) extras.start_key = show(page.startKey);
  if (page.nextStartKey !== undefined) extras.next_start_key = show(page.nextStartKey);
  return extras;
}

/** Attempts are listed newest first by `[created, id]`. */
export const ATTEMPT_KEY = opaqueKey('number', 'number');

/** Rows a chunk of a whole attempts listing holds: an attempt's JSON carries its request and answer. */
const ATTEMPT_CHUNK_ROWS = 100;

/**
 * An attempts listing's answer (`created_from`, `created_to`, `page_size`, `start_key`, or
 * `paginate=false`), read by `read` in the window; `whole`, what the query's filters test.
 */
export function attemptsReply<T>(
  query: URLSearchParams,
  read: (q: TimeWindow & PageQuery<CompoundKey>) => Page<T, CompoundKey>,
  json: (row: T) => unknown,
  whole?: WholeDoc<T>,
): Reply | Promise<Reply> {
  const window = timeWindowOf(query);
  return listingReply(query, (q) => read({ ...window, ...q }), json, ATTEMPT_KEY, { whole, chunkRows: ATTEMPT_CHUNK_ROWS, timeRange: true });
}
