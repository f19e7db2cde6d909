import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { ancestorsPage, setReseller, siblingsPage } from './tree.js';
import { moveAccount } from './move.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { ANCESTORS_QUERY, BY_NAME_QUERY, descendingOf, listingReply, opaqueKey } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { accountSchema } from './schema.js';
import {
  accountJson,
  resellerIdOf,
  type Account,
  checkAccountCreate,
  checkAccountWrite,
  createAccount,
  deleteAccount,
  getAccount,
  readApiKey,
  rotateApiKey,
  updateAccount,
} from './service.js';
import { childrenPage, descendantsPage, type ChildRow, type TreeRow } from './tree-index.js';

/** Children, descendants and siblings are listed by name, keyed by `[name, id]`. */
const BY_NAME = opaqueKey('string', 'string');

/** Ancestors are listed root first, keyed by how far above the account each is. */
const BY_DEPTH = opaqueKey('number');

/** A listing row of the tree: Kazoo's summary (`tree`: the ancestors, root first). */
function treeSummary(r: TreeRow): Record<string, unknown> {
  return { id: r.id, name: r.name, realm: r.realm, tree: JSON.parse(r.tree) };
}

/** A row of the children and siblings listings: the summary and how many accounts are below it. */
function childJson(r: ChildRow): Record<string, unknown> {
  return { ...treeSummary(r), descendants_count: r.descendants_count };
}

/** `parents` and `tree`: the ancestors the caller may see, `{id, name}`, root first (nearest first when descending). */
function ancestorsReply(ctx: RequestContext, core: Core): Reply {
  const nearestFirst = descendingOf(ctx.query);
  return listingReply(ctx.query, (q) => ancestorsPage(core, authOf(ctx), ctx.params.account_id, q, nearestFirst), (r) => ({ id: r.id, name: r.name }), BY_DEPTH);
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
  reseller_id: { type: 'string', description: "the account's reseller (the nearest reseller above it, else the master account): in its GET and writes' answers" },
};
const answer = documentAnswer(accountSchema, DERIVED);

/** An account as its GET and writes answer it: with its reseller, as Kazoo's cb_accounts adds it (Account Manager reads it). */
function accountAnswer(core: Core, a: Account): Record<string, unknown> {
  return { ...accountJson(a), reseller_id: resellerIdOf(core, a) };
}

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
    handler: (ctx, core) => {
      const input = dataObject(ctx);
      checkAccountCreate(core, authOf(ctx), input);
      return { data: accountJson(createAccount(core, input, { parentId: ctx.params.account_id })) };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id',
    response: answer,
    handler: (ctx, core) => {
      const a = getAccount(core, ctx.params.account_id);
      return { data: accountAnswer(core, a), extras: { revision: a.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id', (ctx, core, mode) => {
    const input = dataObject(ctx);
    checkAccountWrite(core, authOf(ctx), ctx.params.account_id, input);
    const account = updateAccount(core, ctx.params.account_id, input, mode === 'merge' ? 'merge' : 'post', ifMatchOf(ctx));
    return { data: accountAnswer(core, account) };
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
    query: BY_NAME_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => childrenPage(core, ctx.params.account_id, q, desc), childJson, BY_NAME);
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/siblings',
    query: BY_NAME_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => siblingsPage(core, authOf(ctx), ctx.params.account_id, q, desc), childJson, BY_NAME);
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/parents',
    query: ANCESTORS_QUERY,
    response: ANCESTORS,
    handler: ancestorsReply,
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/tree',
    query: ANCESTORS_QUERY,
    response: ANCESTORS,
    handler: ancestorsReply,
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/move',
    body: moveSchema,
    response: answer,
    handler: async (ctx, core) => ({ data: accountJson(await moveAccount(core, authOf(ctx), ctx.params.account_id, dataObject(ctx).to)) }),
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
    query: BY_NAME_QUERY,
    response: SUMMARY,
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
