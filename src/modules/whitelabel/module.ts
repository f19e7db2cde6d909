import type { TelModule } from '../types.js';
import { whitelabelRoutes } from './routes.js';

/** Whitelabel documents (company name, domain, logo, icon) and their token-free lookup by domain. */
export const whitelabelModule: TelModule = {
  name: 'whitelabel',
  endpoints: ['whitelabel'],
  routes: whitelabelRoutes,
  accountTables: ['whitelabels', 'whitelabel_files'],
};
