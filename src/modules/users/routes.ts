import { writeRoutes, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { LISTING_QUERY, ordered, paginate } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { checkUserWrite, createUser, deleteUser, getUser, listUsers, updateUser, userJson } from './service.js';
import { userSchema } from './schema.js';

/** The request's user document, once the caller may write what it asks for. */
function userInput(ctx: RequestContext, core: Core): Record<string, unknown> {
  const input = dataObject(ctx);
  const userId = ctx.params.user_id;
  checkUserWrite(core, authOf(ctx), ctx.params.account_id, userId ? { op: 'update', userId, input } : { op: 'create' });
  return input;
}

/** The fields of a user a listing shows. */
const SUMMARY = ['username', 'first_name', 'last_name', 'email', 'priv_level', 'enabled'] as const;

const answer = documentAnswer(userSchema);

/** `/v2/accounts/{id}/users…`. */
export const userRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/users',
    query: LISTING_QUERY,
    response: listAnswer(userSchema, SUMMARY),
    handler: (ctx, core) => {
      const rows = listUsers(core, ctx.params.account_id).map((u) => {
        const row: Record<string, unknown> = { id: u.id };
        for (const f of SUMMARY) if (u.doc[f] !== undefined) row[f] = u.doc[f];
        return row;
      });
      const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
      return { data: page, extras };
    },
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/users',
    body: userSchema,
    response: answer,
    handler: (ctx, core) => ({ data: userJson(createUser(core, ctx.params.account_id, userInput(ctx, core))) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id',
    response: answer,
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      return { data: userJson(u), extras: { revision: u.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id/users/:user_id', (ctx, core, mode) => ({
    data: userJson(updateUser(core, ctx.params.account_id, ctx.params.user_id, userInput(ctx, core), mode, ifMatchOf(ctx))),
  }), userSchema, answer),
  {
    method: 'DELETE',
    path: 'accounts/:account_id/users/:user_id',
    response: deletedAnswer(userSchema),
    handler: (ctx, core) => {
      checkUserWrite(core, authOf(ctx), ctx.params.account_id, { op: 'delete', userId: ctx.params.user_id });
      return {
        data: { ...userJson(deleteUser(core, ctx.params.account_id, ctx.params.user_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      };
    },
  },
];
