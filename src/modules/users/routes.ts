import { writeRoutes, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, listingReply } from '../../http/paging.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { checkUserWrite, createUser, deleteUser, getUser, updateUser, userJson, usersPage, userSchema } from './service.js';
import type { StoredDoc } from '../documents/store.js';

/** A user as the listing shows it. */
function userSummary(u: StoredDoc): Record<string, unknown> {
  return {
    id: u.id,
    username: u.doc.username,
    first_name: u.doc.first_name,
    last_name: u.doc.last_name,
    email: u.doc.email,
    priv_level: u.doc.priv_level,
    enabled: u.doc.enabled,
  };
}

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
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => usersPage(core, ctx.params.account_id, q, desc), userSummary, CREATED_KEY);
    },
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/users',
    body: userSchema,
    handler: (ctx, core) => ({ data: userJson(createUser(core, ctx.params.account_id, userInput(ctx, core))) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id',
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      return { data: userJson(u), extras: { revision: u.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id/users/:user_id', (ctx, core, mode) => ({
    data: userJson(updateUser(core, ctx.params.account_id, ctx.params.user_id, userInput(ctx, core), mode, ifMatchOf(ctx))),
  }), userSchema),
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
