import { writeRoutes, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { ordered, paginate } from '../../http/paging.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { checkUserWrite, createUser, deleteUser, getUser, hashPasswordOf, listUsers, updateUser, userJson, userSchema } from './service.js';

/** The request's user document, once the caller may write what it asks for. */
function userInput(ctx: RequestContext, core: Core): Record<string, unknown> {
  const input = dataObject(ctx);
  const userId = ctx.params.user_id;
  checkUserWrite(core, authOf(ctx), ctx.params.account_id, userId ? { op: 'update', userId, input } : { op: 'create' });
  return input;
}

/** `/v2/accounts/{id}/users…`. */
export const userRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/users',
    handler: (ctx, core) => {
      const rows = listUsers(core, ctx.params.account_id).map((u) => ({
        id: u.id,
        username: u.doc.username,
        first_name: u.doc.first_name,
        last_name: u.doc.last_name,
        email: u.doc.email,
        priv_level: u.doc.priv_level,
        enabled: u.doc.enabled,
      }));
      const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
      return { data: page, extras };
    },
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/users',
    body: userSchema,
    handler: async (ctx, core) => {
      const input = userInput(ctx, core);
      const password = await hashPasswordOf(core, ctx.params.account_id, input);
      return { data: userJson(createUser(core, ctx.params.account_id, input, undefined, password)) };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id',
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      return { data: userJson(u), extras: { revision: u.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id/users/:user_id', async (ctx, core, mode) => {
    const { account_id: accountId, user_id: userId } = ctx.params;
    const input = userInput(ctx, core);
    const password = await hashPasswordOf(core, accountId, input, userId);
    return { data: userJson(updateUser(core, accountId, userId, input, mode, ifMatchOf(ctx), password)) };
  }, userSchema),
  {
    method: 'DELETE',
    path: 'accounts/:account_id/users/:user_id',
    handler: (ctx, core) => {
      checkUserWrite(core, authOf(ctx), ctx.params.account_id, { op: 'delete', userId: ctx.params.user_id });
      return {
        data: { ...userJson(deleteUser(core, ctx.params.account_id, ctx.params.user_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      };
    },
  },
];
