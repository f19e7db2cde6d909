import type { TelModule } from '../types.js';
import { ledgerRoutes } from './routes.js';

/** Ledgers: what resellers credit and debit their accounts (tel bills nothing itself), summed and listed. */
export const ledgersModule: TelModule = {
  name: 'ledgers',
  endpoints: ['ledgers'],
  accountTables: ['ledgers'],
  routes: ledgerRoutes,
};
