import type { TelModule } from '../types.js';
import { configRoutes, requireAdminForAccountConfig } from './routes.js';

/** System configuration (`system_configs`) and accounts' own settings (`configs`). */
export const configModule: TelModule = {
  name: 'config',
  endpoints: ['system_configs', 'configs'],
  routes: configRoutes,
  accountTables: ['account_configs'],
  authorizers: [requireAdminForAccountConfig],
};
