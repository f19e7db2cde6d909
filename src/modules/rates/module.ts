import type { Core } from '../../core-type.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import type { RequestContext } from '../../http/context.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { writeRoutes, type QueryParam, type RouteDef } from '../../http/router.js';
import { documentSummary } from '../documents/crud.js';
import { filterDoc, publicDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { rateSchema } from './schema.js';
import { createRate, ratedeckOf, ratedeckOwner, ratedecks, rateNumber, rates, ratesForPrefix, ratesPage } from './service.js';

/** The ratedeck a request means: `ratedeck_id` of its query string or of its `data` (Kazoo reads both). */
function ratedeck(ctx: RequestContext, core: Core): string {
  const data = ctx.data && typeof ctx.data === 'object' && !Array.isArray(ctx.data) ? (ctx.data as Record<string, unknown>) : {};
  return ratedeckOf(core, ctx.query.get('ratedeck_id') ?? data.ratedeck_id);
}

const RATEDECK: QueryParam = { name: 'ratedeck_id', description: 'the ratedeck (default: `hotornot` `default_ratedeck`, else `ratedeck`)', schema: { type: 'string' } };
const ONE = 'rates/:rate_id';
const answer = documentAnswer(rateSchema);
const rows = listAnswer(rateSchema, rates.kind.summary, rates.kind.rowFields);

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'rates',
    superduper: true,
    query: [...LISTING_QUERY, RATEDECK, { name: 'prefix', description: 'only the rates whose prefix leads this one, whole, the longest first', schema: { type: 'string' } }],
    response: { anyOf: [rows, { type: 'array', items: answer }] },
    handler: (ctx, core) => {
      const deck = ratedeck(ctx, core);
      const prefix = ctx.query.get('prefix');
      if (prefix) {
        // cb_rates summary/2 loads rates/lookup through crossbar_view: a listing, with its page_size
        const found = ratesForPrefix(core, deck, prefix).map(publicDoc);
        return { data: found, extras: { page_size: found.length } };
      }
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => ratesPage(core, deck, q, desc), (d) => documentSummary(rates.kind, d), CREATED_KEY, { whole: filterDoc });
    },
  },
  {
    method: 'PUT',
    path: 'rates',
    superduper: true,
    query: [RATEDECK],
    // a rate's id is Kazoo's, made of its country, prefix and suffix: a second one of those is a conflict
    errors: [409],
    body: rateSchema,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(createRate(core, ratedeck(ctx, core), dataObject(ctx))) }),
  },
  {
    method: 'GET',
    path: 'rates/ratedecks',
    superduper: true,
    response: {
      type: 'object',
      required: ['default_ratedeck', 'ratedecks'],
      properties: { default_ratedeck: { type: 'string' }, ratedecks: { type: 'array', items: { type: 'string' } } },
    },
    handler: (_ctx, core) => ({ data: ratedecks(core) }),
  },
  {
    method: 'GET',
    path: 'rates/number/:number',
    errors: [500],
    query: [RATEDECK, { name: 'direction', description: '`inbound` or `outbound`: only the rates for calls that way', schema: { type: 'string', enum: ['inbound', 'outbound'] } }],
    response: { type: 'object', description: "the rate, in Kazoo's fields (`Rate`, `Base-Cost`, `Prefix`, …)" },
    handler: (ctx, core) => ({ data: rateNumber(core, ctx.params.number, { ratedeckId: ctx.query.get('ratedeck_id') ?? undefined, direction: ctx.query.get('direction') }) }),
  },
  {
    method: 'GET',
    path: ONE,
    superduper: true,
    query: [RATEDECK],
    response: answer,
    handler: (ctx, core) => {
      const d = rates.get(core, ratedeckOwner(ratedeck(ctx, core)), ctx.params.rate_id);
      return { data: publicDoc(d), extras: { revision: d.rev } };
    },
  },
  ...writeRoutes(
    ONE,
    (ctx, core, mode) => ({ data: publicDoc(rates.update(core, ratedeckOwner(ratedeck(ctx, core)), ctx.params.rate_id, dataObject(ctx), mode, ifMatchOf(ctx))) }),
    rateSchema,
    answer,
  ).map((r): RouteDef => ({ ...r, superduper: true, query: [RATEDECK] })),
  {
    method: 'DELETE',
    path: ONE,
    superduper: true,
    query: [RATEDECK],
    response: deletedAnswer(rateSchema),
    handler: (ctx, core) => ({
      data: { ...publicDoc(rates.remove(core, ratedeckOwner(ratedeck(ctx, core)), ctx.params.rate_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
    }),
  },
];

/**
 * `/v2/rates`: Kazoo's `cb_rates` — the ratedecks' rates (a super-duper admin's), and what a call
 * to a number costs (any token).
 */
export const ratesModule: TelModule = { name: 'rates', endpoints: ['rates'], routes };
