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
