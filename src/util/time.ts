import { errors } from '../errors.js';

/** Seconds between 0000-01-01 (Gregorian) and the Unix epoch, as Kazoo counts time. */
export const GREGORIAN_OFFSET_SECONDS = 62_167_219_200;

/** Current time in Gregorian seconds (the API's timestamps). */
export function nowGregorian(nowMs: number = Date.now()): number {
  return Math.floor(nowMs / 1000) + GREGORIAN_OFFSET_SECONDS;
}

/** Converts Gregorian seconds to Unix milliseconds. */
export function gregorianToUnixMs(gregorianSeconds: number): number {
  return (gregorianSeconds - GREGORIAN_OFFSET_SECONDS) * 1000;
}

/** A time window of a listing, in unix ms, both ends included. */
export interface TimeWindow {
  createdFrom?: number;
  createdTo?: number;
}

/**
 * The window `created_from`..`created_to` given in Gregorian seconds, as unix ms (`created_to`
 * takes its whole second). One that ends before it starts is refused as Kazoo refuses it.
 */
export function gregorianWindow(from?: number, to?: number): TimeWindow {
  if (from !== undefined && to !== undefined && to < from) {
    throw errors.invalidField('created_from', 'date_range', `created_to ${to} is prior to created_from ${from}`, { cause: from });
  }
  const window: TimeWindow = {};
  if (from !== undefined) window.createdFrom = gregorianToUnixMs(from);
  if (to !== undefined) window.createdTo = gregorianToUnixMs(to) + 999;
  return window;
}

/** Kazoo's widest window a time-ranged listing answers (`crossbar` `maximum_range`): 31 days and an hour. */
export const MAX_RANGE_SECONDS = 31 * 86_400 + 3_600;

/**
 * The window of a listing Kazoo reads by time (CDRs, recordings, messages, faxes): `to` defaults
 * to now and `from` to `maxRangeSeconds` before it, both in Gregorian seconds; a window that ends
 * before it starts, or wider than `maxRangeSeconds`, is refused as crossbar_view refuses it. As
 * unix ms, both ends included.
 */
export function boundedWindow(from: number | undefined, to: number | undefined, maxRangeSeconds: number, nowMs: number = Date.now()): Required<TimeWindow> {
  const end = to ?? nowGregorian(nowMs);
  const start = from ?? end - maxRangeSeconds;
  if (end < start) {
    throw errors.invalidField('created_from', 'date_range', `created_to ${end} is prior to created_from ${start}`, { cause: start });
  }
  if (end - start > maxRangeSeconds) {
    throw errors.invalidField('created_from', 'date_range', `created_to ${end} is more than ${maxRangeSeconds} seconds from created_from ${start}`, { cause: end });
  }
  return { createdFrom: gregorianToUnixMs(start), createdTo: gregorianToUnixMs(end) + 999 };
}

/** Gregorian seconds as RFC 1036 writes a date in GMT, as Kazoo does (`Tue, 02 Jan 2024 13:14:15 GMT`: `toUTCString`'s form). */
export function rfc1036(gregorianSeconds: number): string {
  return new Date(gregorianToUnixMs(gregorianSeconds)).toUTCString();
}

/** Converts Unix milliseconds to Gregorian seconds. */
export function unixMsToGregorian(unixMs: number): number {
  return Math.floor(unixMs / 1000) + GREGORIAN_OFFSET_SECONDS;
}

let isoSecond = -1;
let isoText = '';

/** ISO 8601 UTC date-time with seconds resolution, as the envelope's `timestamp`. */
export function isoSeconds(nowMs: number = Date.now()): string {
  // every answer of a second carries the same text: formatted once a second, not per request
  const second = Math.floor(nowMs / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return isoText;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as people write it (`500ms`, `90s`, `15m`, `24h`, `7d`; a bare number is seconds) in ms; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  return m ? Number(m[1]) * DURATION_UNITS_MS[m[2] ?? 's'] : undefined;
}

/**
 * An instant given as Gregorian seconds (the API's timestamps), unix seconds (anything below the
 * Gregorian offset: years before 3940 cannot be mistaken), an ISO 8601 date, or a duration meaning
 * that long ago (`2h`); unix ms, or undefined when unreadable.
 */
export function parseInstant(value: unknown, nowMs: number = Date.now()): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= GREGORIAN_OFFSET_SECONDS ? gregorianToUnixMs(n) : n * 1000;
  }
  const ago = parseDuration(text);
  if (ago !== undefined) return nowMs - ago;
  const at = text === '' ? NaN : Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
