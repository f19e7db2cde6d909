import type { Core } from '../core-type.js';
import type { ConfigCategory } from '../modules/config/categories.js';

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

/** `api.resources`: peering of account resources, and how number jobs are paced and recovered. */
export const JOBS_CONFIG: ConfigCategory = {
  name: RESOURCES_CONFIG,
  description: "Carrier resources and bulk number jobs. Kazoo's name for the category, `crossbar.resources`, works too.",
  keys: {
    allow_peers: {
      type: 'boolean',
      default: false,
      description: "Whether an account's own resources may be peers (`peer: true`); when false such a resource is refused.",
    },
    job_recover_threshold_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.recoverThresholdSeconds,
      description: 'Seconds without change after which a job counts as stalled and another executor resumes it.',
    },
    job_recover_timeout_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.recoverTimeoutSeconds,
      description: 'Seconds between two looks for stalled jobs (a server also looks when it starts).',
    },
    job_recovery_threshold_s: { type: 'integer', minimum: 1, description: "Kazoo's name for `job_recover_threshold_s`, read when that is not set." },
    job_recovery_timeout_s: { type: 'integer', minimum: 1, description: "Kazoo's name for `job_recover_timeout_s`, read when that is not set." },
    job_batch_size: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.batchSize,
      description: "Numbers an executor commits together with the job's progress, in one transaction.",
    },
    job_batch_pause_ms: {
      type: 'integer',
      minimum: 0,
      default: DEFAULT_JOB_SETTINGS.batchPauseMs,
      description: 'Milliseconds an executor pauses between two batches, leaving room for other requests.',
    },
    job_poll_interval_ms: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.pollIntervalMs,
      description: 'Milliseconds between two looks of a server for jobs that other processes (the CLI) created.',
    },
  },
};

function positive(core: Core, keys: string[], fallback: number, allowZero = false): number {
  for (const key of keys) {
    const raw = core.config.value<unknown>(RESOURCES_CONFIG, key, undefined);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (Number.isFinite(n) && (n > 0 || (allowZero && n === 0))) return n;
  }
  return fallback;
}

/** Reads the job settings from `api.resources`; the seed's `job_recover_*` and Kazoo's `job_recovery_*` both work. */
export function jobSettings(core: Core): JobSettings {
  const d = DEFAULT_JOB_SETTINGS;
  return {
    recoverThresholdMs:
      positive(core, ['job_recover_threshold_s', 'job_recovery_threshold_s'], d.recoverThresholdSeconds) * 1000,
    recoverIntervalMs: positive(core, ['job_recover_timeout_s', 'job_recovery_timeout_s'], d.recoverTimeoutSeconds) * 1000,
    batchSize: Math.max(1, Math.floor(positive(core, ['job_batch_size'], d.batchSize))),
    batchPauseMs: positive(core, ['job_batch_pause_ms'], d.batchPauseMs, true),
    pollIntervalMs: positive(core, ['job_poll_interval_ms'], d.pollIntervalMs),
  };
}
