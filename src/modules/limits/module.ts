import type { TelModule } from '../types.js';
import { limitsRoutes } from './routes.js';
import { SERVICES_CATEGORY } from './charges.js';

/** Per-account trunk and call limits with the charge-acceptance handshake. */
export const limitsModule: TelModule = {
  name: 'limits',
  endpoints: ['limits'],
  routes: limitsRoutes,
  accountTables: ['limits'],
  configs: [
    {
      name: SERVICES_CATEGORY,
      description:
        "Rates of billable items: a v2 change of an account's limits that raises a quantity whose rate is above 0 answers 402 with the charges until they are accepted.",
      keys: {
        limits: {
          type: 'object',
          description:
            'Rates by limits item, e.g. `{"inbound_trunks": {"rate": 6.99, "single_discount_rate": 1, "cumulative_discount_rate": 0.5}}` (a bare number is the rate); an item without a rate costs nothing.',
        },
      },
    },
  ],
};
