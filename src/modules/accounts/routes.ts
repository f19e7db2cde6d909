import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import { childSummary, listSiblings, moveAccount, setReseller, visibleAncestors } from './tree.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { ordered, paginate } from '../../http/paging.js';
import { accountSchema } from './schema.js';
import {
  accountJson,
  accountSummary,
  checkAccountWrite,
  createAccount,
  deleteAccount,
  getAccount,
  listChildren,
  listDescendants,
  readApiKey,
  rotateApiKey,
  updateAccount,
} from './service.js';

/** A listing answer: the rows in the order asked, paged. */
function listed(ctx: RequestContext, rows: Record<string, unknown>[]): Reply {
  const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
  return { data: page, extras };
}

/** `POST …/move`: where the account goes. */
const moveSchema = {
  type: 'object',
  required: ['to'],
  properties: { to: { type: 'string', description: 'the id of the new parent account' } },
};

/** `/v2/accounts…`: the account tree, its documents and API key. */
export const accountRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: 'accounts',
    body: accountSchema,
    handler: (ctx, core) => ({ data: accountJson(createAccount(core, dataObject(ctx), { parentId: authOf(ctx).accountId })) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id',
    body: accountSchema,
    handler: (ctx, core) => ({ data: accountJson(createAccount(core, dataObject(ctx), { parentId: ctx.params.account_id })) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id',
    handler: (ctx, core) => {
      const a = getAccount(core, ctx.params.account_id);
      return { data: accountJson(a), extras: { revision: a.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id', (ctx, core, mode) => {
    const input = dataObject(ctx);
    checkAccountWrite(core, authOf(ctx), ctx.params.account_id, input);
    return { data: accountJson(updateAccount(core, ctx.params.account_id, input, mode, ifMatchOf(ctx))) };
  }, accountSchema),
  {
    method: 'DELETE',
    path: 'accounts/:account_id',
    handler: (ctx, core) => {
      checkAccountWrite(core, authOf(ctx), ctx.params.account_id, 'delete');
      return { data: { ...accountJson(deleteAccount(core, ctx.params.account_id)), _read_only: { deleted: true } } };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/children',
    handler: (ctx, core) => listed(ctx, listChildren(core, ctx.params.account_id).map((a) => childSummary(core, a))),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/siblings',
    handler: (ctx, core) => listed(ctx, listSiblings(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/parents',
    handler: (ctx, core) => listed(ctx, visibleAncestors(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/tree',
    handler: (ctx, core) => listed(ctx, visibleAncestors(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/move',
    body: moveSchema,
    handler: (ctx, core) => ({ data: accountJson(moveAccount(core, authOf(ctx), ctx.params.account_id, dataObject(ctx).to)) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    handler: (ctx, core) => ({ data: accountJson(setReseller(core, ctx.params.account_id, true)) }),
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    handler: (ctx, core) => ({ data: accountJson(setReseller(core, ctx.params.account_id, false)) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/descendants',
    handler: (ctx, core) => listed(ctx, listDescendants(core, ctx.params.account_id).map(accountSummary)),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/api_key',
    handler: (ctx, core) => ({ data: { api_key: readApiKey(core, authOf(ctx), ctx.params.account_id) } }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/api_key',
    handler: (ctx, core) => ({ data: { api_key: rotateApiKey(core, authOf(ctx), ctx.params.account_id).apiKey } }),
  },
];
