import type { TelModule } from '../types.js';
import { ledgerRoutes } from './routes.js';

/** Ledgers: the account's (none, since tel bills nothing) and their total. */
export const ledgersModule: TelModule = {
  name: 'ledgers',
  endpoints: ['ledgers'],
  routes: ledgerRoutes,
};
