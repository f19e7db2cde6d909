import { describe, expect, it } from 'vitest';
import type { Core } from '../core-type.js';
import { jobSettings } from './settings.js';

/** A core whose `api.resources` configuration holds exactly the keys given. */
function coreWith(resources: Record<string, unknown>): Core {
  const value = (_category: string, key: string, fallback: unknown) => (key in resources ? resources[key] : fallback);
  return { config: { value } } as unknown as Core;
}

const DEFAULTS = { recoverThresholdMs: 3_600_000, recoverIntervalMs: 21_600_000, batchSize: 1000, batchPauseMs: 0, pollIntervalMs: 1000 };

describe('the job settings of api.resources', () => {
  it('unset: the seed defaults (1 hour, 6 hours, batches of 1,000, no pause, a poll each second)', () => {
    expect(jobSettings(coreWith({}))).toEqual(DEFAULTS);
  });

  it("seconds become milliseconds; Kazoo's job_recovery_* names work as the seed's job_recover_* do", () => {
    expect(jobSettings(coreWith({ job_recovery_threshold_s: 2, job_recovery_timeout_s: 3, job_batch_size: 7, job_batch_pause_ms: 5, job_poll_interval_ms: 50 }))).toEqual({
      recoverThresholdMs: 2000,
      recoverIntervalMs: 3000,
      batchSize: 7,
      batchPauseMs: 5,
      pollIntervalMs: 50,
    });
    expect(jobSettings(coreWith({ job_recover_threshold_s: 4, job_recover_timeout_s: 5 }))).toMatchObject({ recoverThresholdMs: 4000, recoverIntervalMs: 5000 });
  });

  it('zero turns off the pause between batches; for any other setting it reads as the default', () => {
    const s = jobSettings(
      coreWith({ job_recover_threshold_s: 0, job_recover_timeout_s: 0, job_batch_size: 0, job_batch_pause_ms: 0, job_poll_interval_ms: 0 }),
    );
    expect(s).toEqual(DEFAULTS);
    expect(jobSettings(coreWith({ job_batch_pause_ms: '0', job_poll_interval_ms: '0' }))).toEqual(DEFAULTS);
  });

  it('a negative, unreadable or infinite value is the default, also for the pause, which may be zero', () => {
    for (const bad of [-5, -0.5, 'soon', Number.NaN, Number.POSITIVE_INFINITY, '-Infinity']) {
      const s = jobSettings(coreWith({ job_recover_threshold_s: bad, job_batch_size: bad, job_batch_pause_ms: bad, job_poll_interval_ms: bad }));
      expect(s, String(bad)).toEqual(DEFAULTS);
    }
  });

  it('a value above its bound (one day) reads as the bound', () => {
    const s = jobSettings(coreWith({ job_recover_threshold_s: 10 ** 9, job_batch_pause_ms: 10 ** 12, job_poll_interval_ms: 10 ** 12 }));
    expect(s).toMatchObject({ recoverThresholdMs: 86_400_000, batchPauseMs: 86_400_000, pollIntervalMs: 86_400_000 });
  });
});
