import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import { childSummary, listSiblings, moveAccount, setReseller, visibleAncestors } from './tree.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { LISTING_QUERY, ordered, paginate } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
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

/** What an account's answers add to its document. */
const DERIVED = {
  superduper_admin: { type: 'boolean', description: 'the account is a super-duper admin (the master account)' },
  is_reseller: { type: 'boolean' },
  created: { type: 'integer', description: 'Gregorian seconds' },
};
const answer = documentAnswer(accountSchema, DERIVED);

const TREE = { type: 'array', items: { type: 'string' }, description: "the account's ancestors, root first" };

/** A row of the descendants listing. */
const SUMMARY = listAnswer(accountSchema, ['name', 'realm'], { tree: TREE });

/** A row of the children and siblings listings: how many accounts are below each, too. */
const CHILDREN = listAnswer(accountSchema, ['name', 'realm'], { tree: TREE, descendants_count: { type: 'integer', minimum: 0 } });

/** The ancestors' listings (parents, tree): each `{id, name}`, root first. */
const ANCESTORS = {
  type: 'array',
  items: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
};

/** `/v2/accounts…`: the account tree, its documents and API key. */
export const accountRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: 'accounts',
    body: accountSchema,
    response: answer,
    handler: (ctx, core) => ({ data: accountJson(createAccount(core, dataObject(ctx), { parentId: authOf(ctx).accountId })) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id',
    body: accountSchema,
    response: answer,
    handler: (ctx, core) => ({ data: accountJson(createAccount(core, dataObject(ctx), { parentId: ctx.params.account_id })) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id',
    response: answer,
    handler: (ctx, core) => {
      const a = getAccount(core, ctx.params.account_id);
      return { data: accountJson(a), extras: { revision: a.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id', (ctx, core, mode) => {
    const input = dataObject(ctx);
    checkAccountWrite(core, authOf(ctx), ctx.params.account_id, input);
    const account = updateAccount(core, ctx.params.account_id, input, mode === 'merge' ? 'merge' : 'post', ifMatchOf(ctx));
    return { data: accountJson(account) };
  }, accountSchema, answer),
  {
    method: 'DELETE',
    path: 'accounts/:account_id',
    response: deletedAnswer(accountSchema, DERIVED),
    handler: (ctx, core) => {
      checkAccountWrite(core, authOf(ctx), ctx.params.account_id, 'delete');
      return { data: { ...accountJson(deleteAccount(core, ctx.params.account_id)), _read_only: { deleted: true } } };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/children',
    query: LISTING_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => listed(ctx, listChildren(core, ctx.params.account_id).map((a) => childSummary(core, a))),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/siblings',
    query: LISTING_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => listed(ctx, listSiblings(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/parents',
    query: LISTING_QUERY,
    response: ANCESTORS,
    handler: (ctx, core) => listed(ctx, visibleAncestors(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/tree',
    query: LISTING_QUERY,
    response: ANCESTORS,
    handler: (ctx, core) => listed(ctx, visibleAncestors(core, authOf(ctx), ctx.params.account_id)),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/move',
    body: moveSchema,
    response: answer,
    handler: (ctx, core) => ({ data: accountJson(moveAccount(core, authOf(ctx), ctx.params.account_id, dataObject(ctx).to)) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    response: answer,
    handler: (ctx, core) => ({ data: accountJson(setReseller(core, ctx.params.account_id, true)) }),
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    response: answer,
    handler: (ctx, core) => ({ data: accountJson(setReseller(core, ctx.params.account_id, false)) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/descendants',
    query: LISTING_QUERY,
    response: SUMMARY,
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
