import { writeRoutes, type RouteDef } from '../../http/router.js';
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

/** What an account's answers add to its document. */
const DERIVED = {
  superduper_admin: { type: 'boolean', description: 'the account is a super-duper admin (the master account)' },
  is_reseller: { type: 'boolean' },
  created: { type: 'integer', description: 'Gregorian seconds' },
};
const answer = documentAnswer(accountSchema, DERIVED);

/** A row of the children and descendants listings. */
const SUMMARY = listAnswer(accountSchema, ['name', 'realm'], {
  tree: { type: 'array', items: { type: 'string' }, description: "the account's ancestors, root first" },
});

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
    response: listAnswer(accountSchema, ['name', 'realm'], {
      tree: { type: 'array', items: { type: 'string' } },
      descendants_count: { type: 'integer', minimum: 0 },
    }),
    handler: (ctx, core) => {
      const rows = listChildren(core, ctx.params.account_id).map((a) => ({
        ...accountSummary(a),
        descendants_count: listDescendants(core, a.id).length,
      }));
      const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
      return { data: page, extras };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/descendants',
    query: LISTING_QUERY,
    response: SUMMARY,
    handler: (ctx, core) => {
      const rows = listDescendants(core, ctx.params.account_id).map(accountSummary);
      const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
      return { data: page, extras };
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
