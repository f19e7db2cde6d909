import type { RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { listingReply, MAX_PAGE_SIZE, opaqueKey, pagingQuery } from '../../http/paging.js';
import type { TelModule } from '../types.js';
import { checkQuery, checkType, queriesOf, search, SEARCHABLE } from './service.js';

const HIT = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    realm: { type: 'string', description: 'an account hit: its realm' },
    descendants_count: { type: 'integer', description: 'an account hit: accounts below it' },
    numbers: { type: 'array', items: { type: 'string' }, description: "a callflow hit: its numbers" },
  },
};

/** `[key, id]`: the searched key's value and the id, opaque as Kazoo's keys. */
const HIT_KEY = opaqueKey('string', 'string');

const SEARCH_QUERY = [
  { name: 't', description: 'the type searched: account (accounts below the caller\'s), callflow (by number)', schema: { type: 'string', enum: [...SEARCHABLE] } },
  { name: 'q', description: 'what it is searched by: name, realm or id (accounts), number (callflows)', schema: { type: 'string' } },
  { name: 'v', description: 'the start of the value (names and realms compared lower case, letters and digits only)', schema: { type: 'string' } },
  ...pagingQuery(),
];

const MULTI_QUERY = [
  SEARCH_QUERY[0],
  { name: 'by_QUERY', description: 'one search a query name (by_name, by_realm, by_id), its value the start searched for', schema: { type: 'object', additionalProperties: { type: 'string' } }, family: true },
];

/** The account a search reads: the path's, else the caller's (`GET /v2/search`). */
const accountOf = (ctx: RequestContext): string => ctx.params.account_id ?? ctx.auth!.accountId;

function oneSearch(ctx: RequestContext, core: Core) {
  const t = checkType(ctx.query.get('t') ?? undefined);
  const q = checkQuery(t, ctx.query.get('q') ?? undefined);
  const v = ctx.query.get('v');
  if (v === null) throw errors.invalidField('v', 'required', 'search needs a value to search for');
  return listingReply(ctx.query, (page) => search(core, ctx.auth!.accountId, accountOf(ctx), t, q, v, page), (hit) => hit, HIT_KEY);
}

/**
 * Several searches of one type at once (`by_name=…&by_realm=…`), answered by query name. Kazoo
 * answers each whole; tel answers each query's first MAX_PAGE_SIZE hits, so that a request reads
 * what it answers.
 */
function multiSearch(ctx: RequestContext, core: Core) {
  const t = checkType(ctx.query.get('t') ?? undefined, 'Search needs a document type to search on');
  // one search a query name, its last value (as the answer keeps it): a query string repeating
  // `by_name` a thousand times still reads at most three pages
  const wanted = new Map<string, string>();
  for (const [k, v] of ctx.query.entries()) if (k.startsWith('by_')) wanted.set(checkQuery(t, k.slice(3)), v);
  if (wanted.size === 0) throw errors.invalidField('multi', 'enum', 'multi search needs some values to search for', { target: queriesOf(t) });
  const data: Record<string, unknown> = {};
  for (const [q, v] of wanted) data[q] = search(core, ctx.auth!.accountId, accountOf(ctx), t, q, v, { pageSize: MAX_PAGE_SIZE }).items;
  return { data };
}

const MULTI_ANSWER = { type: 'object', description: 'the hits of each query, by query name', additionalProperties: { type: 'array', items: HIT } };

const routes: RouteDef[] = [
  { method: 'GET', path: 'accounts/:account_id/search', query: SEARCH_QUERY, response: { type: 'array', items: HIT }, handler: oneSearch },
  { method: 'GET', path: 'accounts/:account_id/search/multi', query: MULTI_QUERY, response: MULTI_ANSWER, handler: multiSearch },
  { method: 'GET', path: 'search', query: SEARCH_QUERY, response: { type: 'array', items: HIT }, handler: oneSearch },
  { method: 'GET', path: 'search/multi', query: MULTI_QUERY, response: MULTI_ANSWER, handler: multiSearch },
];

/** `/v2/search` and `/v2/accounts/{id}/search`: Kazoo's `cb_search`. */
export const searchModule: TelModule = { name: 'search', endpoints: ['search'], routes };
