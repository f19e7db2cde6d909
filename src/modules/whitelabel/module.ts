import type { TelModule } from '../types.js';
import { whitelabelRoutes } from './routes.js';
import { DEFAULT_DOMAINS, WHITELABEL_CATEGORY } from './domains.js';

/** Whitelabel documents (company name, domain, logo, icon, welcome page), their token-free lookup by domain, and the DNS plan of a domain. */
export const whitelabelModule: TelModule = {
  name: 'whitelabel',
  endpoints: ['whitelabel'],
  routes: whitelabelRoutes,
  accountTables: ['whitelabels', 'whitelabel_files'],
  configDefaults: { [WHITELABEL_CATEGORY]: { domains: DEFAULT_DOMAINS } },
};
