import type { TelModule } from '../types.js';
import { appsStoreRoutes } from './routes.js';

/** The apps catalogue and each account's installed apps: what Kazoo's web UI lists and opens. */
export const appsStoreModule: TelModule = {
  name: 'apps-store',
  endpoints: ['apps_store'],
  routes: appsStoreRoutes,
  accountTables: ['account_apps', 'apps_blacklists'],
};
