import type { TelModule } from '../types.js';
import { accountRoutes } from './routes.js';
import { ACCOUNTS_CONFIG_CATEGORY } from './tree.js';
import { resumeAccountMoves } from './move.js';

/** Accounts and their tree: the documents, children, descendants, parents, moves (a move a stopped process left half-way is finished at start). */
export const accountsModule: TelModule = {
  name: 'accounts',
  endpoints: ['accounts'],
  routes: accountRoutes,
  configs: [ACCOUNTS_CONFIG_CATEGORY],
  start: resumeAccountMoves,
};
