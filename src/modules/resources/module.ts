import type { TelModule } from '../types.js';
import { startJobExecutor } from '../../jobs/executor.js';
import { resourceRoutes } from './routes.js';
import { DEFAULT_JOB_SETTINGS, RESOURCES_CONFIG } from '../../jobs/settings.js';

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
  start: (core) => startJobExecutor(core),
};
