import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { ancestorsPage, setReseller, siblingsPage } from './tree.js';
import { moveAccount } from './move.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { ANCESTORS_QUERY, BY_NAME_QUERY, descendingOf, listingReply, opaqueKey, type ListingOptions } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { accountSchema } from './schema.js';
import {
  accountDoc,
  accountFilterDoc,
  accountJson,
  checkAccountCreate,
  checkAccountWrite,
  createAccount,
  deleteAccount,
  findAccount,
  getAccount,
  readApiKey,
  rotateApiKey,
  updateAccount,
} from './service.js';
import { childrenPage, descendantsPage, type ChildRow, type TreeRow } from './tree-index.js';
import type { Account } from './service.js';

/** Children, descendants and siblings are listed by name, keyed by `[name, id]`. */
const BY_NAME = opaqueKey('string', 'string');

/** Ancestors are listed root first, keyed by how far above the account each is. */
const BY_DEPTH = opaqueKey('number');

/** A row of the descendants listing, as Kazoo's `accounts/listing_by_descendants` view emits it (`tree`: the ancestors, root first). */
function treeSummary(r: TreeRow): Record<string, unknown> {
  return { id: r.id, name: r.name, realm: r.realm, tree: JSON.parse(r.tree), flags: flagsOf(r) };
}

/** A row of the children and siblings listings, as Kazoo's `accounts/listing_by_children` view emits it: how many accounts are below it, no tree. */
function childJson(r: ChildRow): Record<string, unknown> {
  return { id: r.id, name: r.name, realm: r.realm, descendants_count: r.descendants_count, flags: flagsOf(r) };
}

/** An account's `flags`, `[]` when it has none (Kazoo's views emit `doc.flags || []`). */
function flagsOf(r: TreeRow): unknown {
  return r.flags === null ? [] : JSON.parse(r.flags);
}

/** An account as the API answers it to the caller (its billing mode is the caller's, see accountJson). */
function answerOf(ctx: RequestContext, core: Core, a: Account): Readonly<Record<string, unknown>> {
  return accountJson(core, a, authOf(ctx).accountId);
}

/**
 * The filters of the account listings test each account's document, as its GET answers it to the
 * caller, with the private fields Kazoo keeps beside it.
 */
function accountFilters(ctx: RequestContext, core: Core): ListingOptions<{ id: string }> {
  const caller = authOf(ctx).accountId;
  return {
    whole: (r) => {
      const a = findAccount(core, r.id);
      return a ? accountFilterDoc(core, a, caller) : { _id: r.id };
    },
  };
}

/** `parents` and `tree`: the ancestors the caller may see, `{id, name}`, root first (nearest first when descending). */
function ancestorsReply(ctx: RequestContext, core: Core): Reply | Promise<Reply> {
  const nearestFirst = descendingOf(ctx.query);
  return listingReply(
    ctx.query,
    (q) => ancestorsPage(core, authOf(ctx), ctx.params.account_id, q, nearestFirst),
    (r) => ({ id: r.id, name: r.name }),
    BY_DEPTH,
    accountFilters(ctx, core),
  );
}

/** `POST …/move`: where the account goes. */
const moveSchema = {
  type: 'object',
  required: ['to'],
  properties: { to: { type: 'string', description: 'the id of the new parent account' } },
};

/** What an account's answers add to its document: the private fields Kazoo's `cb_accounts` copies into them. */
const DERIVED = {
  superduper_admin: { type: 'boolean', description: 'the account is a super-duper admin (the master account)' },
  is_reseller: { type: 'boolean' },
  reseller_id: { type: 'string', description: 'the nearest reseller above the account, else the master account' },
  billing_mode: { enum: ['limits_only', 'normal', 'manual'], description: "`limits_only` when the caller's account is the account's reseller, `normal` when the master account is, else `manual`" },
  wnm_allow_additions: { type: 'boolean', description: 'the account may add numbers outside the carriers (always false here)' },
  created: { type: 'integer', description: 'Gregorian seconds' },
};
const answer = documentAnswer(accountSchema, DERIVED, Object.keys(DERIVED));

const TREE = { type: 'array', items: { type: 'string' }, description: "the account's ancestors, root first" };

/** A row of the descendants listing. */
const SUMMARY = listAnswer(accountSchema, ['name', 'realm', 'flags'], { tree: TREE });

/** A row of the children and siblings listings: how many accounts are below each, too. */
const CHILDREN = listAnswer(accountSchema, ['name', 'realm', 'flags'], { descendants_count: { type: 'integer', minimum: 0 } });

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
    handler: (ctx, core) => ({ data: answerOf(ctx, core, createAccount(core, dataObject(ctx), { parentId: authOf(ctx).accountId })) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id',
    body: accountSchema,
    response: answer,
    handler: (ctx, core) => {
      const input = dataObject(ctx);
      checkAccountCreate(core, authOf(ctx), input);
      return { data: answerOf(ctx, core, createAccount(core, input, { parentId: ctx.params.account_id })) };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id',
    response: answer,
    handler: (ctx, core) => {
      const a = getAccount(core, ctx.params.account_id);
      return { data: answerOf(ctx, core, a), extras: { revision: a.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id', (ctx, core, mode) => {
    const input = dataObject(ctx);
    checkAccountWrite(core, authOf(ctx), ctx.params.account_id, input);
    const account = updateAccount(core, ctx.params.account_id, input, mode === 'merge' ? 'merge' : 'post', ifMatchOf(ctx));
    return { data: answerOf(ctx, core, account) };
  }, accountSchema, answer),
  {
    method: 'DELETE',
    path: 'accounts/:account_id',
    // Kazoo answers the deleted document as stored, without the fields its other answers add
    response: deletedAnswer(accountSchema),
    handler: (ctx, core) => {
      checkAccountWrite(core, authOf(ctx), ctx.params.account_id, 'delete');
      return { data: { ...accountDoc(deleteAccount(core, ctx.params.account_id)), _read_only: { deleted: true } } };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/children',
    query: BY_NAME_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => childrenPage(core, ctx.params.account_id, q, desc), childJson, BY_NAME, accountFilters(ctx, core));
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/siblings',
    query: BY_NAME_QUERY,
    response: CHILDREN,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => siblingsPage(core, authOf(ctx), ctx.params.account_id, q, desc), childJson, BY_NAME, accountFilters(ctx, core));
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
    handler: async (ctx, core) => ({ data: answerOf(ctx, core, await moveAccount(core, authOf(ctx), ctx.params.account_id, dataObject(ctx).to)) }),
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    response: answer,
    handler: (ctx, core) => ({ data: answerOf(ctx, core, setReseller(core, ctx.params.account_id, true)) }),
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/reseller',
    superduper: true,
    response: answer,
    handler: (ctx, core) => ({ data: answerOf(ctx, core, setReseller(core, ctx.params.account_id, false)) }),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/descendants',
    query: BY_NAME_QUERY,
    response: SUMMARY,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => descendantsPage(core, ctx.params.account_id, q, desc), treeSummary, BY_NAME, accountFilters(ctx, core));
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
