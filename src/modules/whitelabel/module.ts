import type { TelModule } from '../types.js';
import { whitelabelRoutes } from './routes.js';
import { WHITELABEL_CONFIG } from './domains.js';

/** Whitelabel documents (company name, domain, logo, icon, welcome page), their token-free lookup by domain, and the DNS plan of a domain. */
export const whitelabelModule: TelModule = {
  name: 'whitelabel',
  endpoints: ['whitelabel'],
  routes: whitelabelRoutes,
  accountTables: ['whitelabels', 'whitelabel_files'],
  configs: [WHITELABEL_CONFIG],
};
