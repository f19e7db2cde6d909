import type { TelModule } from '../types.js';
import { startJobExecutor } from '../../jobs/executor.js';
import { resourceRoutes } from './routes.js';
import { RESOURCES_CONFIG_CATEGORY } from './config.js';
import { adminOnly, WRITE_METHODS } from '../../http/authorize.js';

const RESOURCE_ENDPOINTS = new Set(['resources', 'local_resources']);

/** Resources (carriers) global and per account, their bulk number jobs and collections. */
export const resourcesModule: TelModule = {
  name: 'resources',
  endpoints: ['resources', 'global_resources', 'local_resources'],
  routes: resourceRoutes,
  // Deleting an account takes its jobs (their results go with them by trigger).
  accountTables: ['resource_jobs'],
  configs: [RESOURCES_CONFIG_CATEGORY],
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
