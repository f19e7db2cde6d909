import { jsonArrayPieces, jsonTooDeep } from '../util/json.js';
import { errors } from '../errors.js';
import { CHUNK_ROWS, everyPage, type CompoundKey, type Page, type PageQuery } from '../store/pages.js';
import { boundedWindow, gregorianWindow, type TimeWindow } from '../util/time.js';
import type { EnvelopeExtras } from './envelope.js';
import type { QueryParam, Reply, StreamedData } from './router.js';

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
 * The paging parameters of a listing: `start_key` is the `next_start_key` of the page before, an
 * opaque key (the values of the listing's order for the row the page starts at) unless `startKey`
 * types it otherwise.
 */
export function pagingQuery(startKey: QueryParam['schema'] = { type: 'string' }): QueryParam[] {
  return [
    { name: 'page_size', description: `items a page holds (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'start_key', description: 'where the page starts: the `next_start_key` of the page before (opaque)', schema: startKey },
    { name: 'paginate', description: '`false` lists everything, in one streamed answer', schema: { type: 'boolean' } },
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

/** A time-ranged listing's window: `created_from` and `created_to`. */
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
 * Pages a list that lives in memory (hook types, samples), already in listing order: `start_key`
 * is the index to start at. Listings of stored rows page in SQL instead (`listingReply`).
 */
export function paginate<T>(items: T[], query: URLSearchParams): { page: T[]; extras: EnvelopeExtras } {
  const size = pageSizeOf(query);
  if (size === undefined) return { page: items, extras: { page_size: items.length } };
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

/**
 * A listing's answer: one page read by `read` (with `page_size`, `start_key`, `next_start_key`),
 * or, for `paginate=false`, every row from `start_key` on, read and written in chunks (see
 * StreamedData). Either way the first read happens here, so a listing's errors (an unknown hook)
 * are answered as errors.
 */
export function listingReply<T, K>(
  query: URLSearchParams,
  read: (q: PageQuery<K>) => Page<T, K>,
  json: (row: T) => unknown,
  keys: KeyCodec<K>,
  chunkRows = CHUNK_ROWS,
): Reply {
  const q = pageQueryOf(query, keys.read);
  if (q.pageSize !== undefined) {
    const page = read(q);
    return { data: page.items.map(json), extras: pageExtras(page, keys.show) };
  }
  const first = read({ pageSize: chunkRows, startKey: q.startKey });
  return { stream: jsonArrayStream(everyPage(read, { first, chunkRows }), json) };
}

/** A JSON array written chunk by chunk (one piece a chunk of rows), with its length as `page_size`. */
export function jsonArrayStream<T>(chunks: Iterable<T[]>, json: (row: T) => unknown): StreamedData {
  let count = 0;
  return { pieces: jsonArrayPieces(chunks, json, (n) => (count = n)), extras: () => ({ page_size: count }) };
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
 * `paginate=false`), read by `read` in the window.
 */
export function attemptsReply<T>(query: URLSearchParams, read: (q: TimeWindow & PageQuery<CompoundKey>) => Page<T, CompoundKey>, json: (row: T) => unknown): Reply {
  const window = timeWindowOf(query);
  return listingReply(query, (q) => read({ ...window, ...q }), json, ATTEMPT_KEY, ATTEMPT_CHUNK_ROWS);
}
