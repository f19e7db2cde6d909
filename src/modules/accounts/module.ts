import type { TelModule } from '../types.js';
import { accountRoutes } from './routes.js';
import { ACCOUNTS_CONFIG_CATEGORY } from './tree.js';

/** Accounts and their tree: the documents, children, descendants, parents, moves. */
export const accountsModule: TelModule = {
  name: 'accounts',
  endpoints: ['accounts'],
  routes: accountRoutes,
  configs: [ACCOUNTS_CONFIG_CATEGORY],
};
