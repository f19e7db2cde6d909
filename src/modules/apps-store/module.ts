import type { TelModule } from '../types.js';
import { findAccount } from '../accounts/service.js';
import { appsStoreRoutes } from './routes.js';
import { installDefaultApps } from './service.js';

/** The apps catalogue and each account's installed apps: what Kazoo's web UI lists and opens. */
export const appsStoreModule: TelModule = {
  name: 'apps-store',
  endpoints: ['apps_store'],
  routes: appsStoreRoutes,
  accountTables: ['account_apps', 'apps_blacklists'],
  init(core) {
    // a new master account (`tel init`, a lab's, a reset's) gets the catalogue's apps installed
    core.bus.subscribe((event) => {
      const p = event.payload;
      if (event.type !== 'object' || p.type !== 'account' || p.action !== 'doc_created') return;
      const account = findAccount(core, event.accountId);
      if (account && account.superduper && account.parentId === null) installDefaultApps(core, account.id);
    });
  },
};
