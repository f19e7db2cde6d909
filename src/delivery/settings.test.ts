import { describe, expect, it } from 'vitest';
import { retryAfterMs, retryDelayMs, SETTINGS, type DeliverySettings } from './settings.js';

const defaults = Object.fromEntries(Object.entries(SETTINGS).map(([k, v]) => [k, v.default])) as unknown as DeliverySettings;
const settings = (over: Partial<DeliverySettings>): DeliverySettings => ({ ...defaults, ...over });

describe('the retry schedule', () => {
  it('waits the base before the first retry, twice as long before each further one, up to the maximum', () => {
    const s = settings({ retryBaseDelayMs: 1000, retryMaxDelayMs: 20_000 });
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(s, n))).toEqual([1000, 2000, 4000, 8000, 16_000, 20_000, 20_000]);
    expect(retryDelayMs(settings({ retryBaseDelayMs: 20, retryMaxDelayMs: 200 }), 2)).toBe(40);
  });

  it('the built-in schedule: 1 s, 2 s, 4 s, …', () => {
    expect([1, 2, 3].map((n) => retryDelayMs(defaults, n))).toEqual([1000, 2000, 4000]);
  });

  it('Retry-After in seconds or as an HTTP date, never below zero nor above the maximum; unreadable or absent: none', () => {
    const s = settings({ retryMaxDelayMs: 5000 });
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('2', s, now)).toBe(2000);
    expect(retryAfterMs([' 3 ', '9'], s, now)).toBe(3000);
    expect(retryAfterMs('60', s, now)).toBe(5000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:04 GMT', s, now)).toBe(4000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', s, now)).toBe(0);
    expect(retryAfterMs('soon', s, now)).toBeUndefined();
    expect(retryAfterMs('', s, now)).toBeUndefined();
    expect(retryAfterMs(undefined, s, now)).toBeUndefined();
  });
});
