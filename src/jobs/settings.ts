import type { Core } from '../core-type.js';

/** The configuration category of resources and their jobs (Kazoo's `crossbar.resources` is an alias). */
export const RESOURCES_CONFIG = 'api.resources';

/** How the number-job executor paces itself and when it recovers stalled jobs. */
export interface JobSettings {
  /** a job not modified for this long counts as stalled and is resumed by another executor */
  recoverThresholdMs: number;
  /** how often the stalled-job check runs (it also runs when the server starts) */
  recoverIntervalMs: number;
  /** numbers committed together with the job's progress in one transaction */
  batchSize: number;
  /** pause between batches, leaving room for other requests */
  batchPauseMs: number;
  /** how often a server looks for jobs created by other processes */
  pollIntervalMs: number;
}

/** Defaults, with the seed's values for the recovery settings (1 hour, 6 hours). */
export const DEFAULT_JOB_SETTINGS = {
  recoverThresholdSeconds: 3600,
  recoverTimeoutSeconds: 21_600,
  batchSize: 1000,
  batchPauseMs: 0,
  pollIntervalMs: 1000,
} as const;

/** The longest any of these waits may be (a stalled-job check, a poll, a pause): one day. */
export const MAX_JOB_DELAY_SECONDS = 86_400;

function positive(core: Core, keys: string[], fallback: number, allowZero = false, max = Infinity): number {
  for (const key of keys) {
    const raw = core.config.value<unknown>(RESOURCES_CONFIG, key, undefined);
    if (raw === undefined) continue;
    const n = Number(raw);
    // a value stored before it was bounded reads as the bound
    if (Number.isFinite(n) && (n > 0 || (allowZero && n === 0))) return Math.min(n, max);
  }
  return fallback;
}

/** The `api.resources` keys of delays, as their unit's bound: seconds or milliseconds. */
export const JOB_DELAY_KEYS: Record<string, number> = {
  job_recover_threshold_s: MAX_JOB_DELAY_SECONDS,
  job_recovery_threshold_s: MAX_JOB_DELAY_SECONDS,
  job_recover_timeout_s: MAX_JOB_DELAY_SECONDS,
  job_recovery_timeout_s: MAX_JOB_DELAY_SECONDS,
  job_batch_pause_ms: MAX_JOB_DELAY_SECONDS * 1000,
  job_poll_interval_ms: MAX_JOB_DELAY_SECONDS * 1000,
};

/** Reads the job settings from `api.resources`; the seed's `job_recover_*` and Kazoo's `job_recovery_*` both work. */
export function jobSettings(core: Core): JobSettings {
  const d = DEFAULT_JOB_SETTINGS;
  return {
    recoverThresholdMs:
      positive(core, ['job_recover_threshold_s', 'job_recovery_threshold_s'], d.recoverThresholdSeconds, false, MAX_JOB_DELAY_SECONDS) * 1000,
    recoverIntervalMs:
      positive(core, ['job_recover_timeout_s', 'job_recovery_timeout_s'], d.recoverTimeoutSeconds, false, MAX_JOB_DELAY_SECONDS) * 1000,
    batchSize: Math.max(1, Math.floor(positive(core, ['job_batch_size'], d.batchSize))),
    // Stryker disable next-line BooleanLiteral: the default pause is 0 too, so a zero read as the default is the same pause
    batchPauseMs: positive(core, ['job_batch_pause_ms'], d.batchPauseMs, true, JOB_DELAY_KEYS.job_batch_pause_ms),
    pollIntervalMs: positive(core, ['job_poll_interval_ms'], d.pollIntervalMs, false, JOB_DELAY_KEYS.job_poll_interval_ms),
  };
}
