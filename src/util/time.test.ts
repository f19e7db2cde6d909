import { describe, expect, it } from 'vitest';
import { GREGORIAN_OFFSET_SECONDS, parseDuration, parseInstant, rfc1036, unixMsToGregorian } from './time.js';

describe('durations and instants as people write them', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['1.5h', 5_400_000],
    ['30', 30_000],
    ['0', 0],
    ['soon', undefined],
    ['-5m', undefined],
    ['', undefined],
  ])('duration %j is %j ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  const now = Date.UTC(2026, 4, 1, 12, 0, 0);
  it.each([
    ['Gregorian seconds', String(now / 1000 + GREGORIAN_OFFSET_SECONDS), now],
    ['Gregorian seconds as a number', now / 1000 + GREGORIAN_OFFSET_SECONDS, now],
    ['unix seconds', now / 1000, now],
    ['an ISO 8601 date', '2026-05-01T11:00:00Z', now - 3_600_000],
    ['a duration ago', '2h', now - 7_200_000],
    ['nonsense', 'yesterday-ish', undefined],
    ['nothing', '', undefined],
    ['not a string', { at: 1 }, undefined],
  ])('an instant given as %s', (_what, value, want) => {
    expect(parseInstant(value, now)).toBe(want);
  });
});

describe("dates as Kazoo's RFC 1036 writes them", () => {
  it.each([
    [Date.UTC(2024, 0, 2, 13, 14, 15), 'Tue, 02 Jan 2024 13:14:15 GMT'],
    [Date.UTC(1970, 0, 1), 'Thu, 01 Jan 1970 00:00:00 GMT'],
    [Date.UTC(2026, 11, 31, 23, 59, 59), 'Thu, 31 Dec 2026 23:59:59 GMT'],
  ])('%d: %s', (unixMs, written) => {
    expect(rfc1036(unixMsToGregorian(unixMs))).toBe(written);
  });
});
