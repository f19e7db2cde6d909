import { describe, expect, it } from 'vitest';
import type { Core } from '../core-type.js';
import { currentDeliverySettings, defaultSettingsDoc, deliverySettings, denyPrivateNetworks, MAX_DELAY_MS, retryAfterMs, retryDelayMs, SETTINGS, type DeliverySettings } from './settings.js';

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
    // a number of seconds is the whole value: one in words is no delay, a date ending in its year is a date
    expect(retryAfterMs('5 minutes', s, now)).toBeUndefined();
    expect(retryAfterMs('21 Oct 2015', s, now)).toBe(0);
    expect(retryAfterMs('', s, now)).toBeUndefined();
    expect(retryAfterMs(undefined, s, now)).toBeUndefined();
  });
});

/** A core whose `webhooks` configuration is as given: the system default node, an account's and its reseller's overrides. */
function coreWith(system: Record<string, unknown> | undefined, account?: Record<string, unknown>, reseller?: Record<string, unknown>): Core {
  const config = {
    get: () => (system === undefined ? undefined : { default: system }),
    forAccount: () => account,
    resellerSettings: () => reseller,
    value: (_category: string, key: string, fallback: unknown) => (system && key in system ? system[key] : fallback),
  };
  return { config } as unknown as Core;
}

describe('the delivery settings that apply to an account', () => {
  it('its own, else its reseller\'s, else the system\'s, else the built-in default, key by key', () => {
    const core = coreWith({ retry_base_delay_ms: 30, per_target_concurrency: 4 }, { retry_base_delay_ms: 10 }, { retry_base_delay_ms: 20, request_timeout_ms: 500 });
    expect(deliverySettings(core, 'acct')).toMatchObject({ retryBaseDelayMs: 10, requestTimeoutMs: 500, perTargetConcurrency: 4, attemptFailureCount: 6 });
    expect(deliverySettings(core)).toMatchObject({ retryBaseDelayMs: 30, requestTimeoutMs: 10_000, perTargetConcurrency: 4 });
    expect(deliverySettings(coreWith(undefined))).toEqual(defaults);
  });

  it('numbers written as text count; below the minimum, blank or not a number falls through; above the maximum is the maximum', () => {
    const core = coreWith({ attempt_failure_count: 3, retry_base_delay_ms: 7 }, {
      attempt_failure_count: '4',
      retry_base_delay_ms: ' ',
      request_timeout_ms: 0,
      retry_max_delay_ms: MAX_DELAY_MS * 2,
      per_target_concurrency: 'lots',
      breaker_failure_threshold: Number.POSITIVE_INFINITY,
      secret_rotation_grace_s: 0,
    });
    expect(deliverySettings(core, 'acct')).toMatchObject({
      attemptFailureCount: 4,
      retryBaseDelayMs: 7,
      requestTimeoutMs: 10_000,
      retryMaxDelayMs: MAX_DELAY_MS,
      perTargetConcurrency: 16,
      breakerFailureThreshold: 5,
      secretRotationGraceSeconds: 0,
    });
  });

  it('the built-in defaults as the configuration document shows them', () => {
    expect(defaultSettingsDoc()).toEqual({
      attempt_failure_count: 6,
      attempt_failure_expiry_ms: 60_000,
      request_timeout_ms: 10_000,
      retry_base_delay_ms: 1000,
      retry_max_delay_ms: 60_000,
      attempts_retention_s: 604_800,
      per_target_concurrency: 16,
      breaker_failure_threshold: 5,
      secret_rotation_grace_s: 86_400,
    });
  });

  it('deny_private_networks is on only when the system setting is true', () => {
    expect([undefined, false, 'true', 1, true].map((v) => denyPrivateNetworks(coreWith(v === undefined ? {} : { deny_private_networks: v })))).toEqual([false, false, false, false, true]);
  });
});

describe("the settings of the sender's every try", () => {
  it('worked out again only when a document they come from was replaced, so that a change applies to the next try', () => {
    const docs = {
      system: { default: { retry_base_delay_ms: 30 } } as Record<string, unknown> | undefined,
      account: { retry_base_delay_ms: 10 } as Record<string, unknown> | undefined,
      reseller: { request_timeout_ms: 500 } as Record<string, unknown> | undefined,
    };
    const asked: string[] = [];
    const core = {
      config: {
        get: () => docs.system,
        forAccount: (id: string) => (asked.push(id), docs.account),
        resellerSettings: () => docs.reseller,
      },
    } as unknown as Core;
    const first = currentDeliverySettings(core, 'acct');
    expect(first).toMatchObject({ retryBaseDelayMs: 10, requestTimeoutMs: 500 });
    expect(currentDeliverySettings(core, 'acct')).toBe(first);
    docs.account = { retry_base_delay_ms: 11 };
    expect(currentDeliverySettings(core, 'acct').retryBaseDelayMs).toBe(11);
    docs.reseller = { request_timeout_ms: 600 };
    expect(currentDeliverySettings(core, 'acct').requestTimeoutMs).toBe(600);
    docs.system = { default: { per_target_concurrency: 3 } };
    expect(currentDeliverySettings(core, 'acct').perTargetConcurrency).toBe(3);
    // no account: the system's, no account document asked for
    asked.length = 0;
    const system = currentDeliverySettings(core);
    expect(system).toMatchObject({ retryBaseDelayMs: 1000, requestTimeoutMs: 10_000, perTargetConcurrency: 3 });
    expect(asked).toEqual([]);
    expect(currentDeliverySettings(core, '')).toBe(system);
    // each core remembers its own
    const other = { config: { get: () => undefined, forAccount: () => undefined, resellerSettings: () => undefined } } as unknown as Core;
    expect(currentDeliverySettings(other, 'acct')).toEqual(defaults);
  });
});
