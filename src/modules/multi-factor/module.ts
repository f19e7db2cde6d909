import type { TelModule } from '../types.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import { adminOnly, WRITE_METHODS } from '../../http/authorize.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { deletedAnswer, documentAnswer } from '../../http/answers.js';
import { paginate, pagingQuery } from '../../http/paging.js';
import { getAccount } from '../accounts/service.js';
import { publicDoc } from '../documents/store.js';
import { loginAttemptRoutes } from '../auth/routes.js';
import { multiFactorProviderSchema } from './schema.js';
import { changeSystemProvider, providers, providersSummary, SYSTEM_AUTH, systemProvider, systemProviders } from './service.js';

const ACCOUNT = 'accounts/:account_id/multi_factor';
const answer = documentAnswer(multiFactorProviderSchema);
const row = {
  type: 'object',
  required: ['id', 'provider_type'],
  properties: { id: { type: 'string' }, enabled: { type: 'boolean' }, name: { type: 'string' }, provider_name: { type: 'string' }, provider_type: { const: 'multi_factor' } },
};
const rows = { type: 'array', items: row };

/** Only Kazoo's multi-factor logins are listed here (tel asks no second factor: the list stays empty). */
const MULTI_FACTOR = 'multi_factor';

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'multi_factor',
    query: pagingQuery(),
    response: rows,
    // a view's listing, paged as Kazoo's cb_multi_factor system_summary/1 pages it (crossbar_view:load/3)
    handler: (ctx, core) => {
      const { page, extras } = paginate(systemProviders(core), ctx.query);
      return { data: page, extras };
    },
  },
  {
    method: 'PUT',
    path: 'multi_factor',
    superduper: true,
    body: multiFactorProviderSchema,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(providers.create(core, SYSTEM_AUTH, dataObject(ctx))) }),
  },
  {
    method: 'GET',
    path: 'multi_factor/:provider_id',
    superduper: true,
    response: answer,
    handler: (ctx, core) => ({ data: systemProvider(core, ctx.params.provider_id) }),
  },
  ...writeRoutes(
    'multi_factor/:provider_id',
    (ctx, core, mode) => ({ data: publicDoc(changeSystemProvider(core, ctx.params.provider_id, dataObject(ctx), mode)) }),
    multiFactorProviderSchema,
    answer,
  ).map((r): RouteDef => ({ ...r, superduper: true })),
  {
    method: 'GET',
    path: ACCOUNT,
    response: { type: 'object', required: ['configured', 'multi_factor_providers'], properties: { configured: rows, multi_factor_providers: rows } },
    handler: (ctx, core) => ({ data: providersSummary(core, getAccount(core, ctx.params.account_id).id) }),
  },
  {
    method: 'PUT',
    path: ACCOUNT,
    body: multiFactorProviderSchema,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(providers.create(core, getAccount(core, ctx.params.account_id).id, dataObject(ctx))) }),
  },
  ...loginAttemptRoutes(ACCOUNT, MULTI_FACTOR),
  {
    method: 'GET',
    path: `${ACCOUNT}/:provider_id`,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(providers.get(core, ctx.params.account_id, ctx.params.provider_id)) }),
  },
  ...writeRoutes(
    `${ACCOUNT}/:provider_id`,
    (ctx, core, mode) => ({ data: publicDoc(providers.update(core, ctx.params.account_id, ctx.params.provider_id, dataObject(ctx), mode, ifMatchOf(ctx))) }),
    multiFactorProviderSchema,
    answer,
  ),
  {
    method: 'DELETE',
    path: `${ACCOUNT}/:provider_id`,
    response: deletedAnswer(multiFactorProviderSchema),
    handler: (ctx, core) => ({ data: { ...publicDoc(providers.remove(core, ctx.params.account_id, ctx.params.provider_id, ifMatchOf(ctx))), _read_only: { deleted: true } } }),
  },
];

/** An account's multi-factor configurations are changed by its admins (Kazoo: any user): they govern its logins. */
const requireAdminForProviders = adminOnly(
  ({ method, path }) => WRITE_METHODS.has(method) && path.accountId !== undefined && path.resources.some((r) => r.name === 'multi_factor'),
  "changing the account's multi-factor configurations needs an admin of the account",
);

/** `/v2/multi_factor` (the system's providers) and `/v2/accounts/{id}/multi_factor` (an account's, and its multi-factor login attempts). */
export const multiFactorModule: TelModule = {
  name: 'multi_factor',
  endpoints: ['multi_factor'],
  authorizers: [requireAdminForProviders],
  routes,
};
