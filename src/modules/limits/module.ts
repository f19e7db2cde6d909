import type { TelModule } from '../types.js';
import { accountOwnedTables } from '../accounts/service.js';
import { limitsRoutes } from './routes.js';

if (!accountOwnedTables.includes('limits')) accountOwnedTables.push('limits');

/** Per-account trunk and call limits with the charge-acceptance handshake. */
export const limitsModule: TelModule = {
  name: 'limits',
  endpoints: ['limits'],
  routes: limitsRoutes,
};
