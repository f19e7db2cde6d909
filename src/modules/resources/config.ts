import type { ConfigCategory } from '../config/categories.js';
import { DEFAULT_JOB_SETTINGS, JOB_DELAY_KEYS, RESOURCES_CONFIG } from '../../jobs/settings.js';

/** `api.resources`: peering of account resources, and how number jobs are paced and recovered. */
export const RESOURCES_CONFIG_CATEGORY: ConfigCategory = {
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
      maximum: JOB_DELAY_KEYS.job_recover_threshold_s,
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.recoverThresholdSeconds,
      description: 'Seconds without change after which a job counts as stalled and another executor resumes it.',
    },
    job_recover_timeout_s: {
      type: 'integer',
      maximum: JOB_DELAY_KEYS.job_recover_timeout_s,
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.recoverTimeoutSeconds,
      description: 'Seconds between two looks for stalled jobs (a server also looks when it starts).',
    },
    job_recovery_threshold_s: { type: 'integer', minimum: 1, maximum: JOB_DELAY_KEYS.job_recovery_threshold_s, description: "Kazoo's name for `job_recover_threshold_s`, read when that is not set." },
    job_recovery_timeout_s: { type: 'integer', minimum: 1, maximum: JOB_DELAY_KEYS.job_recovery_timeout_s, description: "Kazoo's name for `job_recover_timeout_s`, read when that is not set." },
    job_batch_size: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.batchSize,
      description: "Numbers an executor commits together with the job's progress, in one transaction.",
    },
    job_batch_pause_ms: {
      type: 'integer',
      maximum: JOB_DELAY_KEYS.job_batch_pause_ms,
      minimum: 0,
      default: DEFAULT_JOB_SETTINGS.batchPauseMs,
      description: 'Milliseconds an executor pauses between two batches, leaving room for other requests.',
    },
    job_poll_interval_ms: {
      type: 'integer',
      maximum: JOB_DELAY_KEYS.job_poll_interval_ms,
      minimum: 1,
      default: DEFAULT_JOB_SETTINGS.pollIntervalMs,
      description: 'Milliseconds between two looks of a server for jobs that other processes (the CLI) created.',
    },
  },
};
