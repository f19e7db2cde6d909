import { deletedAnswer } from '../../http/answers.js';
import type { RequestContext } from '../../http/context.js';
import { CREATED_KEY, listingReply, newestFirst, orderQuery, pagingQuery, TIME_WINDOW_QUERY, timeWindowOf } from '../../http/paging.js';
import { ifMatchOf } from '../../http/request.js';
import type { QueryParam, RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/registry.js';
import { documentRoutes } from '../documents/routes.js';
import { publicDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { clicktocallSchema } from './schema.js';
import { clicktocalls, connect, historyJson, historyPage, removeClicktocall, type ConnectRequest } from './service.js';

const ONE = 'accounts/:account_id/clicktocall/:doc_id';

/** A connect's request: its fields in the body, else in the query string (Kazoo reads both). */
function connectRequest(ctx: RequestContext): ConnectRequest {
  const data = ctx.data && typeof ctx.data === 'object' && !Array.isArray(ctx.data) ? (ctx.data as Record<string, unknown>) : {};
  const value = (name: string) => data[name] ?? ctx.query.get(name) ?? undefined;
  const flag = (name: string, fallback: boolean) => {
    const v = value(name);
    return v === undefined ? fallback : v === true || v === 'true';
  };
  return { contact: value('contact'), blocking: flag('blocking', false), autoAnswer: flag('auto_answer', true) };
}

const CONNECT: JsonSchema = {
  type: 'object',
  properties: {
    contact: { type: 'string', description: 'the number to connect the extension with' },
    blocking: { type: 'boolean', description: '`true`: answer once the call is placed, with its history entry (else at once, 202)' },
    auto_answer: { type: 'boolean', description: 'the loopback leg answers itself (default true)' },
  },
};
const CONNECT_QUERY: QueryParam[] = Object.entries(CONNECT.properties as Record<string, JsonSchema>).map(([name, schema]) => ({
  name,
  description: String(schema.description),
  schema: { type: (schema.type as string) ?? 'string' },
}));
const HISTORY_ITEM = {
  type: 'object',
  required: ['timestamp', 'contact', 'result'],
  properties: {
    id: { type: 'string' },
    timestamp: { type: 'integer', description: 'when the call was placed (Gregorian seconds)' },
    contact: { type: 'string' },
    call_id: { type: 'string' },
    result: { type: 'string', enum: ['success', 'error'] },
    cause: { type: 'string' },
  },
};
const CONNECTED = { anyOf: [HISTORY_ITEM, { type: 'object', description: "Kazoo's originate request (202)", required: ['call_id'] }] };

const connectRoutes: RouteDef[] = (['GET', 'POST'] as const).map(
  (method): RouteDef => ({
    method,
    path: `${ONE}/connect`,
    query: CONNECT_QUERY,
    ...(method === 'POST' ? { body: CONNECT } : {}),
    response: CONNECTED,
    errors: [202],
    handler: (ctx, core) => connect(core, ctx.params.account_id, ctx.params.doc_id, connectRequest(ctx)),
  }),
);

const historyRoute: RouteDef = {
  method: 'GET',
  path: `${ONE}/history`,
  query: [...TIME_WINDOW_QUERY, ...pagingQuery(), ...orderQuery('newest first', 'oldest first', true)],
  response: { type: 'array', items: HISTORY_ITEM },
  handler: (ctx, core) => {
    const window = timeWindowOf(ctx.query);
    const newest = newestFirst(ctx.query);
    return listingReply(ctx.query, (q) => historyPage(core, ctx.params.account_id, ctx.params.doc_id, { ...window, ...q }, newest), historyJson, CREATED_KEY);
  },
};

/** A click-to-call's DELETE takes its history with it. */
const routes = documentRoutes(clicktocalls).map(
  (r): RouteDef =>
    r.method === 'DELETE'
      ? {
          ...r,
          response: deletedAnswer(clicktocallSchema),
          handler: (ctx, core) => ({
            data: { ...publicDoc(removeClicktocall(core, ctx.params.account_id, ctx.params.doc_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
          }),
        }
      : r,
);

/**
 * `/v2/accounts/{id}/clicktocall`: Kazoo's `cb_clicktocall` — the documents, `connect` (a
 * simulated call) and the history of the calls placed.
 */
export const clicktocallModule: TelModule = {
  name: 'clicktocall',
  endpoints: ['clicktocall'],
  routes: [...routes, ...connectRoutes, historyRoute],
  accountTables: ['clicktocall_history'],
};
