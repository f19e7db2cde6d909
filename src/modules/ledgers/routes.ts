import type { RouteDef } from '../../http/router.js';
import { getAccount } from '../accounts/service.js';

/**
 * tel bills nothing and keeps no ledgers: an account's ledgers are Kazoo's answer for an account
 * without ledger entries.
 */
export const ledgerRoutes: RouteDef[] = [
  // `GET /v2/accounts/{id}/ledgers`: the account's usage by ledger source (none)
  {
    method: 'GET',
    path: 'accounts/:account_id/ledgers',
    response: { type: 'object', description: 'usage by ledger source: none' },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: {} };
    },
  },
  // `GET /v2/accounts/{id}/ledgers/total`: the balance in currency units, which Monster UI shows in its account panel
  {
    method: 'GET',
    path: 'accounts/:account_id/ledgers/total',
    response: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: { amount: 0 } };
    },
  },
];
