import type { TelModule } from '../types.js';
import { cdrRoutes } from './routes.js';
import { CDRS_CONFIG } from './service.js';

/**
 * Call detail records: every leg of a simulated call that ends leaves one (written with its
 * `channel_destroy`), listed as Kazoo's `cdrs` module lists them.
 */
export const cdrsModule: TelModule = {
  name: 'cdrs',
  endpoints: ['cdrs'],
  routes: cdrRoutes,
  configs: [CDRS_CONFIG],
  accountTables: ['cdrs'],
};
