import { writeRoutes, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { descendingOf, listingReply, opaqueKey } from '../../http/paging.js';
import { accountSchema } from './schema.js';
import {
  accountJson,
  checkAccountWrite,
  createAccount,
  deleteAccount,
  getAccount,
  readApiKey,
  rotateApiKey,
  updateAccount,
} from './service.js';
import { childrenPage, descendantsPage, type TreeRow } from './tree.js';

/** Children and descendants are listed by name, keyed by `[name, id]`. */
const BY_NAME = opaqueKey('string', 'string');

/** A listing row of the tree: Kazoo's summary (`tree`: the ancestors, root first). */
function treeSummary(r: TreeRow): Record<string, unknown> {
  return { id: r.id, name: r.name, realm: r.realm, tree: JSON.parse(r.tree) };
}

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
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => childrenPage(core, ctx.params.account_id, q, desc), (r) => ({ ...treeSummary(r), descendants_count: r.descendants_count }), BY_NAME);
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/descendants',
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => descendantsPage(core, ctx.params.account_id, q, desc), treeSummary, BY_NAME);
    },
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
