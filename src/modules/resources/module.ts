import type { TelModule } from '../types.js';
import { startJobExecutor } from '../../jobs/executor.js';
import { resourceRoutes } from './routes.js';
import { DEFAULT_JOB_SETTINGS, JOB_DELAY_KEYS, RESOURCES_CONFIG } from '../../jobs/settings.js';
import { compileValidator } from '../../schema/validate.js';
import { checkDefaultNode } from '../config/service.js';
import { adminOnly, WRITE_METHODS } from '../auth/admin-writes.js';

/** The job delays of `api.resources` (a stalled-job check, a poll, a pause): a day at most. */
const checkJobDelays = compileValidator({
  type: 'object',
  properties: Object.fromEntries(Object.entries(JOB_DELAY_KEYS).map(([key, max]) => [key, { type: 'number', minimum: 0, maximum: max }])),
}).check;

const RESOURCE_ENDPOINTS = new Set(['resources', 'local_resources']);

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
  // carriers hold gateway credentials and route calls: an account's are changed by its admins
  // (global ones by a super-duper admin); number jobs stay open to the account's users
  authorizers: [
    adminOnly(
      ({ method, path }) =>
        WRITE_METHODS.has(method) && RESOURCE_ENDPOINTS.has(path.endpoint ?? '') && path.args[0]?.toLowerCase() !== 'jobs',
      "changing the account's resources needs an admin of the account",
    ),
  ],
  start: (core) => startJobExecutor(core),
};
