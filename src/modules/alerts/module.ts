import type { TelModule } from '../types.js';
import { alertRoutes } from './routes.js';

/** Alerts a super-duper admin addresses to accounts, resellers, admins or users (Kazoo's system alerts). */
export const alertsModule: TelModule = {
  name: 'alerts',
  endpoints: ['alerts'],
  routes: alertRoutes,
};
