import type { TelModule } from '../types.js';
import { limitsRoutes } from './routes.js';

/** Per-account trunk and call limits with the charge-acceptance handshake. */
export const limitsModule: TelModule = {
  name: 'limits',
  endpoints: ['limits'],
  routes: limitsRoutes,
  accountTables: ['limits'],
};
