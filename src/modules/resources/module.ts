import type { TelModule } from '../types.js';
import { startJobExecutor } from '../../jobs/executor.js';
import { resourceRoutes } from './routes.js';
import { DEFAULT_JOB_SETTINGS, JOB_DELAY_KEYS, RESOURCES_CONFIG } from '../../jobs/settings.js';
import { compileValidator } from '../../schema/validate.js';
import { checkDefaultNode } from '../config/service.js';

/** The job delays of `api.resources` (a stalled-job check, a poll, a pause): a day at most. */
const checkJobDelays = compileValidator({
  type: 'object',
  properties: Object.fromEntries(Object.entries(JOB_DELAY_KEYS).map(([key, max]) => [key, { type: 'number', minimum: 0, maximum: max }])),
}).check;

/** Resources (carriers) global and per account, their bulk number jobs and collections. */
export const resourcesModule: TelModule = {
  name: 'resources',
  endpoints: ['resources', 'global_resources', 'local_resources'],
  routes: resourceRoutes,
  // Deleting an account takes its jobs (their results go with them by trigger).
  accountTables: ['resource_jobs'],
  configDefaults: {
    [RESOURCES_CONFIG]: {
      job_recover_threshold_s: DEFAULT_JOB_SETTINGS.recoverThresholdSeconds,
      job_recover_timeout_s: DEFAULT_JOB_SETTINGS.recoverTimeoutSeconds,
    },
  },
  configChecks: { [RESOURCES_CONFIG]: checkDefaultNode(checkJobDelays) },
  start: (core) => startJobExecutor(core),
};
