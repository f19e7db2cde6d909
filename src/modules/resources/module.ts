import type { TelModule } from '../types.js';
import { startJobExecutor } from '../../jobs/executor.js';
import { resourceRoutes } from './routes.js';
import { RESOURCES_CONFIG_CATEGORY } from './config.js';

/** Resources (carriers) global and per account, their bulk number jobs and collections. */
export const resourcesModule: TelModule = {
  name: 'resources',
  endpoints: ['resources', 'global_resources', 'local_resources'],
  routes: resourceRoutes,
  // Deleting an account takes its jobs (their results go with them by trigger).
  accountTables: ['resource_jobs'],
  configs: [RESOURCES_CONFIG_CATEGORY],
  start: (core) => startJobExecutor(core),
};
