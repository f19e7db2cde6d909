import type { RouteDef } from '../../http/router.js';
import { documentSchema } from '../../restrictions/index.js';
import { deleteTemplate, getTemplate, setTemplate } from './service.js';

/** `/v2/accounts/{id}/token_restrictions`: the account's restriction template. */
export const tokenRestrictionRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/token_restrictions',
    handler: (ctx, core) => ({ data: { restrictions: getTemplate(core, ctx.params.account_id) } }),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/token_restrictions',
    body: documentSchema,
    handler: (ctx, core) => ({ data: { restrictions: setTemplate(core, ctx.params.account_id, ctx.data ?? {}) } }),
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/token_restrictions',
    handler: (ctx, core) => ({
      data: { restrictions: deleteTemplate(core, ctx.params.account_id), _read_only: { deleted: true } },
    }),
  },
];
