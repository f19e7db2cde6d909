import type { TelModule } from '../types.js';
import { simulateHangup } from '../simulations/hangup.js';
import { channelRoutes } from './routes.js';

/**
 * Channels: the legs of simulated calls in progress (a call simulated with `hangup: false`), as
 * Kazoo's `channels` module lists them, and the actions a simulated switch can carry out on them.
 */
export const channelsModule: TelModule = {
  name: 'channels',
  endpoints: ['channels'],
  routes: channelRoutes,
  simulations: { hangup: simulateHangup },
  accountTables: ['channels'],
};
