import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject, flagOf } from '../../http/request.js';
import { boundedWindowOf, CREATED_KEY, listingReply, pagingQuery, TIME_WINDOW_QUERY } from '../../http/paging.js';
import { MAX_RANGE_SECONDS } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { ledgerSchema } from './schema.js';
import { availableLedgers, getLedger, ledgerJson, ledgersSummary, ledgersTotal, listLedgers, monthSummary, writeLedger } from './service.js';

const BASE = 'accounts/:account_id/ledgers';
const bySource = { type: 'object', additionalProperties: { type: 'object', properties: { amount: { type: 'number' }, usage: { type: 'object' } } } };
/** A ledger as answered (its amount in currency, negative for a debit: not the schema's positive amount). */
const ledgerAnswer = {
  type: 'object',
  required: ['id', 'amount', 'account', 'source'],
  properties: {
    id: { type: 'string', description: 'YYYYMM-<md5>' },
    amount: { type: 'number', description: 'in currency: negative for a debit' },
    account: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
    source: { type: 'object', properties: { id: { type: 'string' }, service: { type: 'string' } } },
    usage: { type: 'object' },
    period: { type: 'object' },
    description: { type: 'string' },
    metadata: { type: 'object' },
    executor: { type: 'object' },
    audit: { type: 'object', description: 'who wrote it, through which request' },
  },
};
/** A credit or debit as answered: the ledger, or with `impact_reseller` each account's ledger and balance. */
const writeAnswer = { anyOf: [ledgerAnswer, { type: 'object', additionalProperties: { type: 'object', required: ['ledger', 'available_dollars', 'is_reseller'] } }] };

/** Ledgers: what an account's reseller credits and debits it, summed by service and in all. */
export const ledgerRoutes: RouteDef[] = [
  // `GET /v2/accounts/{id}/ledgers`: the month's (or the window's) ledgers summed by source service
  {
    method: 'GET',
    path: BASE,
    query: TIME_WINDOW_QUERY,
    response: { ...bySource, description: 'usage by ledger source' },
    handler: (ctx, core) => ({ data: ledgersSummary(core, ctx.params.account_id, boundedWindowOf(ctx.query, MAX_RANGE_SECONDS)) }),
  },
  // `GET /v2/accounts/{id}/ledgers/total`: the balance in currency units, which Monster UI shows in its account panel
  {
    method: 'GET',
    path: `${BASE}/total`,
    response: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
    handler: (ctx, core) => ({ data: { amount: ledgersTotal(core, getAccount(core, ctx.params.account_id).id) } }),
  },
  {
    method: 'GET',
    path: `${BASE}/available`,
    response: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, friendly_name: { type: 'string' } } } },
    handler: (ctx, core) => ({ data: availableLedgers(core, getAccount(core, ctx.params.account_id).id) }),
  },
  ...(['credit', 'debit'] as const).map(
    (type): RouteDef => ({
      method: 'PUT',
      path: `${BASE}/${type}`,
      body: ledgerSchema,
      response: writeAnswer,
      errors: [409],
      handler: (ctx, core) => {
        const auth = authOf(ctx);
        const request = { id: ctx.requestId, client_ip: ctx.remoteAddress, method: ctx.method, path: ctx.path.segments.join('/') };
        return { data: writeLedger(core, { ...auth, request }, ctx.params.account_id, type, dataObject(ctx), flagOf(ctx, 'impact_reseller')) };
      },
    }),
  ),
  {
    method: 'GET',
    path: `${BASE}/summary/:month`,
    response: { type: 'object', required: ['summary', 'breakdown'], properties: { summary: bySource, breakdown: { type: 'array' } } },
    handler: (ctx, core) => ({ data: monthSummary(core, ctx.params.account_id, ctx.params.month) }),
  },
  {
    method: 'GET',
    path: `${BASE}/:source_service`,
    query: [...TIME_WINDOW_QUERY, ...pagingQuery()],
    response: { type: 'array', items: ledgerAnswer },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      const window = boundedWindowOf(ctx.query, MAX_RANGE_SECONDS);
      return listingReply(ctx.query, (q) => listLedgers(core, ctx.params.account_id, ctx.params.source_service, { ...window, ...q }), ledgerJson, CREATED_KEY);
    },
  },
  {
    method: 'GET',
    path: `${BASE}/:source_service/:ledger_id`,
    response: ledgerAnswer,
    handler: (ctx, core) => ({ data: getLedger(core, ctx.params.account_id, ctx.params.source_service, ctx.params.ledger_id) }),
  },
];
