import type { TelModule } from '../types.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import { adminOnly, WRITE_METHODS } from '../../http/authorize.js';
import { authOf, dataObject } from '../../http/request.js';
import { AUTH_CATEGORY } from '../auth/auth-modules.js';
import { loginAttemptRoutes } from '../auth/routes.js';
import { accountAuthConfigSchema } from './schema.js';
import { availableAuthMethods, changeSecurity, deleteSecurity, securityOf } from './service.js';

const ACCOUNT = 'accounts/:account_id/security';
/** Settings as answered: each method's multi-factor configuration named under `multi_factor._read_only`. */
const settings = { type: 'object', properties: { auth_modules: { type: 'object', additionalProperties: { type: 'object' } } } };

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'security',
    response: { type: 'object', required: ['available_auth_methods'], properties: { available_auth_methods: { type: 'array', items: { type: 'string' } } } },
    handler: (_ctx, core) => ({ data: availableAuthMethods(core) }),
  },
  {
    method: 'GET',
    path: ACCOUNT,
    response: { type: 'object', required: ['account', 'inherited_config'], properties: { account: { type: 'object' }, inherited_config: settings } },
    handler: (ctx, core) => ({ data: securityOf(core, ctx.params.account_id) }),
  },
  ...writeRoutes(
    ACCOUNT,
    (ctx, core, mode) => ({ data: changeSecurity(core, authOf(ctx), ctx.params.account_id, dataObject(ctx), mode) }),
    accountAuthConfigSchema,
    settings,
  ),
  {
    method: 'DELETE',
    path: ACCOUNT,
    response: { type: 'object' },
    handler: (ctx, core) => ({ data: deleteSecurity(core, ctx.params.account_id) }),
  },
  ...loginAttemptRoutes(ACCOUNT),
];

/** An account's login settings are changed by its admins (Kazoo: any user): they can lock everyone out. */
const requireAdminForSecurity = adminOnly(
  ({ method, path }) => WRITE_METHODS.has(method) && path.accountId !== undefined && path.endpoint === 'security',
  "changing the account's login settings needs an admin of the account",
);

/**
 * `/v2/security` (the login methods accounts may configure) and `/v2/accounts/{id}/security`: an
 * account's login settings (`crossbar.auth` `auth_modules`, inherited from its ancestors up to its
 * reseller and the system, honoured at login) and its login attempts.
 */
export const securityModule: TelModule = {
  name: 'security',
  endpoints: ['security'],
  authorizers: [requireAdminForSecurity],
  accountConfigSchemas: { [AUTH_CATEGORY]: accountAuthConfigSchema },
  routes,
};
