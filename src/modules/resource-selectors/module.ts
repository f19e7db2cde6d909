import { documentAnswer } from '../../http/answers.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply, opaqueKey, pagingQuery } from '../../http/paging.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import type { RequestContext } from '../../http/context.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import type { Core } from '../../core-type.js';
import { ref } from '../../schema/registry.js';
import { documentRoutes } from '../documents/routes.js';
import { filterDoc, publicDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { resourceSelectorRulesSchema, resourceSelectorSchema } from './schema.js';
import { getRules, putSelector, resourceSelectors, selectorCounts, selectorRow, selectorsPage, setRules, type SelectorCount } from './service.js';

const BASE = 'accounts/:account_id/resource_selectors';
const ONE = `${BASE}/:doc_id`;

const ROWS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      resource: { type: 'string' },
      selector: { type: 'string' },
      value: { type: 'string' },
      start_time: { type: 'integer' },
      stop_time: { type: 'integer' },
    },
  },
};
const COUNTS = { type: 'array', items: { type: 'object', description: '`{key: count}`: how many selectors it has', additionalProperties: { type: 'integer' } } };
const NAME_KEY = opaqueKey('string');
const answer = documentAnswer(resourceSelectorSchema);

/** Counts by `group`, as Kazoo's grouped views answer them: `{key: count}` each. */
function countsReply(ctx: RequestContext, core: Core, group: 'name' | 'resource', within?: { field: 'name' | 'resource'; value: string }) {
  const keys = { read: (query: URLSearchParams) => NAME_KEY.read(query)?.[0] as string | undefined, show: (k: string) => NAME_KEY.show([k]) };
  return listingReply(ctx.query, (q) => selectorCounts(core, ctx.params.account_id, group, q, within), (c: SelectorCount) => ({ [c.key]: c.count }), keys);
}

/** The selectors of one name and resource, a page at a time. */
const ofNameAndResource = (name: string, resource: string): RouteDef['handler'] => (ctx, core) =>
  listingReply(ctx.query, (q) => selectorsPage(core, ctx.params.account_id, q, descendingOf(ctx.query), { name: ctx.params[name], resource: ctx.params[resource] }), selectorRow, opaqueKey('string'), { whole: filterDoc });

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: BASE,
    query: LISTING_QUERY,
    response: ROWS,
    handler: (ctx, core) => listingReply(ctx.query, (q) => selectorsPage(core, ctx.params.account_id, q, descendingOf(ctx.query)), selectorRow, CREATED_KEY, { whole: filterDoc }),
  },
  { method: 'GET', path: `${BASE}/name`, query: pagingQuery(), response: COUNTS, handler: (ctx, core) => countsReply(ctx, core, 'name') },
  {
    method: 'GET',
    path: `${BASE}/name/:name`,
    query: pagingQuery(),
    response: COUNTS,
    handler: (ctx, core) => countsReply(ctx, core, 'resource', { field: 'name', value: ctx.params.name }),
  },
  { method: 'GET', path: `${BASE}/name/:name/resource/:resource`, query: LISTING_QUERY, response: ROWS, handler: ofNameAndResource('name', 'resource') },
  { method: 'GET', path: `${BASE}/resource`, query: pagingQuery(), response: COUNTS, handler: (ctx, core) => countsReply(ctx, core, 'resource') },
  {
    method: 'GET',
    path: `${BASE}/resource/:resource`,
    query: pagingQuery(),
    response: COUNTS,
    handler: (ctx, core) => countsReply(ctx, core, 'name', { field: 'resource', value: ctx.params.resource }),
  },
  { method: 'GET', path: `${BASE}/resource/:resource/name/:name`, query: LISTING_QUERY, response: ROWS, handler: ofNameAndResource('name', 'resource') },
  {
    method: 'GET',
    path: `${BASE}/rules`,
    response: ref(resourceSelectorRulesSchema),
    handler: (ctx, core) => {
      const r = getRules(core, ctx.params.account_id);
      return { data: r.doc, extras: { revision: r.rev } };
    },
  },
  {
    method: 'POST',
    path: `${BASE}/rules`,
    body: resourceSelectorRulesSchema,
    response: ref(resourceSelectorRulesSchema),
    handler: (ctx, core) => ({ data: setRules(core, ctx.params.account_id, dataObject(ctx)) }),
  },
  ...writeRoutes(
    ONE,
    (ctx, core, mode) => ({ data: publicDoc(putSelector(core, ctx.params.account_id, ctx.params.doc_id, dataObject(ctx), mode, ifMatchOf(ctx))) }),
    resourceSelectorSchema,
    answer,
  ).filter((r) => r.method === 'POST'),
  // reading and deleting one are those of any document
  ...documentRoutes(resourceSelectors).filter((r) => r.path === ONE && (r.method === 'GET' || r.method === 'DELETE')),
];

/**
 * `/v2/accounts/{id}/resource_selectors`: Kazoo's `cb_resource_selectors` — an account's selectors
 * (written by id with POST), their counts by name and by resource, and its rules.
 */
export const resourceSelectorsModule: TelModule = { name: 'resource_selectors', endpoints: ['resource_selectors'], routes };
