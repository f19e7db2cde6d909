import { jsonTooDeep } from '../util/json.js';
import { errors } from '../errors.js';
import type { Page, PageQuery } from '../store/pages.js';
import { gregorianWindow, type TimeWindow } from '../util/time.js';
import type { EnvelopeExtras } from './envelope.js';
import type { QueryParam } from './router.js';

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

/** The paging parameters of a listing (`start_key` an opaque key unless `startKey` types it). */
export function pagingQuery(startKey: QueryParam['schema'] = { type: 'string' }): QueryParam[] {
  return [
    { name: 'page_size', description: `items a page holds (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'start_key', description: 'where the page starts: the `next_start_key` of the page before', schema: startKey },
    { name: 'paginate', description: '`false` lists everything at once', schema: { type: 'boolean' } },
  ];
}

/** The paging and ordering parameters of a listing kept in memory (`paginate` over `ordered`). */
export const LISTING_QUERY: readonly QueryParam[] = [
  ...pagingQuery(),
  { name: 'ascending', description: '`false` lists newest first (the default is oldest first)', schema: { type: 'boolean' } },
  { name: 'descending', description: '`true` lists newest first', schema: { type: 'boolean' } },
];

/** A time-ranged listing's window: `created_from` and `created_to`. */
export const TIME_WINDOW_QUERY: readonly QueryParam[] = [
  { name: 'created_from', description: 'only what was created at or after (Gregorian seconds)', schema: { type: 'integer', minimum: 0 } },
  { name: 'created_to', description: 'only what was created at or before (Gregorian seconds)', schema: { type: 'integer', minimum: 0 } },
];

/** An attempts listing's parameters: the time window and paging by attempt. */
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
 * Pages an in-memory list already in listing order: `start_key` is the index to start at.
 * Answers the page and the envelope keys (`page_size`, `start_key`, `next_start_key`).
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

/** Sorts for `?ascending=true` / `?descending=false` (listings are ascending by default here). */
export function ordered<T>(items: T[], query: URLSearchParams): T[] {
  const desc = query.get('descending') === 'true' || query.get('ascending') === 'false';
  return desc ? [...items].reverse() : items;
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

/** `start_key` of a listing paged by attempt id (an opaque key, as the listings give it). */
function attemptStartKey(query: URLSearchParams): number | undefined {
  const start = decodeStartKey(query.get('start_key'));
  return typeof start === 'number' ? start : undefined;
}

/** `created_from`, `created_to`, `page_size` and `start_key` of an attempts listing. */
export function attemptQueryOf(query: URLSearchParams): TimeWindow & PageQuery<number> {
  return { ...timeWindowOf(query), ...pageQueryOf(query, attemptStartKey) };
}
