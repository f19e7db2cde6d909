import type { TelModule } from '../types.js';
import { ledgerRoutes } from './routes.js';

/** Ledgers: only their total, since tel keeps none. */
export const ledgersModule: TelModule = {
  name: 'ledgers',
  endpoints: ['ledgers'],
  routes: ledgerRoutes,
};
