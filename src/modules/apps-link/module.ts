import type { RouteDef } from '../../http/router.js';
import { authOf, ownApiUrl } from '../../http/request.js';
import { appsLink } from '../auth/service.js';
import type { TelModule } from '../types.js';

const ACCOUNT_INFO = {
  account_id: { type: 'string' },
  account_name: { type: 'string' },
  language: { type: 'string' },
  is_reseller: { type: 'boolean' },
  reseller_id: { type: 'string' },
  is_master: { type: 'boolean' },
};

const ANSWER = {
  type: 'object',
  required: ['auth_token', 'account'],
  properties: {
    auth_token: {
      type: 'object',
      description: "the token's account, user and the apps it may open",
      properties: {
        ...ACCOUNT_INFO,
        owner_id: { type: 'string' },
        method: { type: 'string' },
        created: { type: 'integer', description: 'Gregorian seconds' },
        apps: { type: 'array', items: { type: 'object' } },
      },
    },
    account: { type: 'object', description: 'the account the link names', properties: ACCOUNT_INFO },
  },
};

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/apps_link/authorize',
    response: ANSWER,
    handler: (ctx, core) => ({ data: appsLink(core, authOf(ctx), ctx.params.account_id, ownApiUrl(ctx)) }),
  },
];

/** `/v2/accounts/{id}/apps_link/authorize`: Kazoo's `cb_apps_link`. */
export const appsLinkModule: TelModule = { name: 'apps_link', endpoints: ['apps_link'], routes };
