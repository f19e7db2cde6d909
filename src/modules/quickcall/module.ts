import type { RequestContext } from '../../http/context.js';
import type { QueryParam, RouteDef } from '../../http/router.js';
import type { Core } from '../../core-type.js';
import type { TelModule } from '../types.js';
import { quickcall, type QuickcallRequest } from './service.js';

const QUERY: QueryParam[] = [
  {
    name: 'number_filter',
    description: '`false` calls the number as written; a pattern calls its first group (by default spaces, commas, dots, dashes and brackets are taken out)',
    schema: { type: 'string' },
  },
  { name: 'auto_answer', description: '`false`: a lone endpoint is not told to answer by itself (default true)', schema: { type: 'boolean' } },
  { name: 'timeout', description: 'seconds the endpoints ring (more than 3; default 30)', schema: { type: 'integer' } },
  { name: 'cid-name', description: 'the caller id name the number sees', schema: { type: 'string' } },
  { name: 'cid-number', description: 'the caller id number the number sees', schema: { type: 'string' } },
];

const ANSWER = {
  type: 'object',
  required: ['application_name', 'application_data', 'endpoints'],
  properties: { application_name: { const: 'transfer' }, application_data: { type: 'object' }, endpoints: { type: 'array' }, call_id: { type: 'string' } },
};

/** The quickcall a request asks for. */
function requestOf(ctx: RequestContext, type: 'device' | 'user', id: string, wait: boolean): QuickcallRequest {
  const q = ctx.query;
  const timeout = Number(q.get('timeout') ?? 30);
  return {
    endpoint: { type, id },
    number: ctx.params.number,
    numberFilter: q.get('number_filter') ?? 'true',
    autoAnswer: q.get('auto_answer') !== 'false',
    timeoutSeconds: Number.isInteger(timeout) && timeout > 3 ? timeout : 30,
    cidName: q.get('cid-name') ?? undefined,
    cidNumber: q.get('cid-number') ?? undefined,
    wait,
  };
}

/** `GET` (originate and answer at once) and `POST` (answer once the call started) on a device's or a user's quickcall. */
function routesOf(type: 'device' | 'user'): RouteDef[] {
  const path = `accounts/:account_id/${type}s/:${type}_id/quickcall/:number`;
  const handler = (wait: boolean) => (ctx: RequestContext, core: Core) => ({
    status: 202,
    data: quickcall(core, ctx.params.account_id, requestOf(ctx, type, ctx.params[`${type}_id`], wait)),
  });
  return [
    { method: 'GET', path, query: QUERY, response: ANSWER, errors: [202, 500], handler: handler(false) },
    { method: 'POST', path, query: QUERY, body: { type: 'object', properties: {} }, response: ANSWER, errors: [202, 500], handler: handler(true) },
  ];
}

/** `/v2/accounts/{id}/{devices|users}/{id}/quickcall/{number}`: a simulated call from the endpoint to a number. */
export const quickcallModule: TelModule = { name: 'quickcall', endpoints: ['quickcall'], routes: [...routesOf('device'), ...routesOf('user')] };
