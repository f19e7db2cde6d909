import type { RouteDef } from '../../http/router.js';
import { getAccount } from '../accounts/service.js';

/**
 * `GET /v2/accounts/{id}/ledgers/total`: the account's balance in currency units (Kazoo's sum of
 * its ledgers, which Monster UI shows in its account panel). tel bills nothing and keeps no
 * ledgers, so every account's total is 0, as Kazoo answers for an account without ledger entries.
 */
export const ledgerRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/ledgers/total',
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: { amount: 0 } };
    },
  },
];
