import type { Core } from '../../core-type.js';
import type { RequestContext } from '../../http/context.js';
import type { QueryParam, RouteDef } from '../../http/router.js';
import { authOf, dataObject, flagOf } from '../../http/request.js';
import { documentAnswer } from '../../http/answers.js';
import { errors } from '../../errors.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { masterAccount } from '../accounts/service.js';
import { availableClassifiers, classifyNumber } from './classifiers.js';
import {
  activateNumber,
  checkNumbers,
  collection,
  collectionFields,
  collectionNumbers,
  createNumber,
  creationStates,
  identifyNumber,
  readNumber,
  releaseNumber,
  reserveNumber,
  single,
  updateNumber,
  type NumberCaller,
} from './lifecycle.js';
import { dialCodeOf, searchPool } from './pool.js';
import { findNumbersSchema, numberCollectionSchema, phoneNumberSchema } from './schema.js';

const BASE = 'accounts/:account_id/phone_numbers';
const ONE = `${BASE}/:number`;

function callerOf(ctx: RequestContext): NumberCaller {
  const auth = authOf(ctx);
  return { accountId: ctx.params.account_id, authAccountId: auth.accountId, isAdmin: auth.isSuperduper };
}

const numberAnswer = documentAnswer(phoneNumberSchema, {
  state: { type: 'string', description: 'reserved, in_service, port_in, available (in the pool), deleted, …' },
  used_by: { type: 'string', description: 'what uses the number (callflow)' },
  features: { type: 'array', items: { type: 'string' }, description: 'the features its document turned on' },
  _read_only: {
    type: 'object',
    properties: {
      created: { type: 'integer' },
      modified: { type: 'integer' },
      features: { type: 'object', properties: { available: { type: 'array', items: { type: 'string' } }, settings: { type: 'object' } } },
      carrier_module: { type: 'string' },
    },
  },
});

const collectionAnswer = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'object', additionalProperties: numberAnswer, description: 'the documents of the numbers that succeeded, by number' },
    error: { type: 'object', description: "Kazoo's error of each number that failed, by number" },
  },
};

/** A number search's query (Kazoo's `find_numbers`), for the OpenAPI document. */
export const SEARCH_QUERY: readonly QueryParam[] = [
  { name: 'prefix', description: 'what the numbers start with: digits after the country code (`415`), or an E.164 prefix (`+1415`)', schema: { type: 'string' } },
  { name: 'quantity', description: 'how many numbers at most (default 1, at most 500)', schema: { type: 'integer', minimum: 1 } },
  { name: 'offset', description: 'how many of the numbers found to skip', schema: { type: 'integer', minimum: 0 } },
  { name: 'country', description: 'the country of the prefix, ISO 3166 alpha-2 (default US)', schema: { type: 'string' } },
];

export const searchAnswer = {
  type: 'array',
  items: { type: 'object', required: ['number', 'state'], properties: { number: { type: 'string' }, state: { type: 'string', const: 'discovery' } } },
};

const validateSearch = compileValidator(findNumbersSchema);

/**
 * `?prefix=…&quantity=…&offset=…&country=…`: numbers of the pools `pools` (in order) that a caller
 * may buy, as Kazoo's number search answers them (`{number, state: "discovery"}`).
 */
export function searchReply(core: Core, query: URLSearchParams, pools: readonly string[]): { data: unknown } {
  const asked: Record<string, unknown> = { prefix: (query.get('prefix') ?? '').replace(/\s/g, '') };
  if (asked.prefix === '') delete asked.prefix;
  if (query.get('quantity') !== null) asked.quantity = query.get('quantity');
  if (query.get('country') !== null) asked.country = query.get('country');
  throwIfErrors(validateSearch.check(asked));
  const offset = Number(query.get('offset') ?? 0);
  if (!Number.isInteger(offset) || offset < 0) throw errors.invalidField('offset', 'type', 'Value did not match type(s): integer', { value: query.get('offset') });
  const prefix = asked.prefix as string;
  const dial = dialCodeOf(asked.country as string);
  if (!prefix.startsWith('+') && !dial) throw errors.invalidField('country', 'enum', `tel does not know the dialling code of ${String(asked.country)}`, { value: asked.country });
  const e164Prefix = prefix.startsWith('+') ? prefix : `${dial}${prefix}`;
  return { data: searchPool(core, pools, e164Prefix, asked.quantity as number, offset).map((number) => ({ number, state: 'discovery' })) };
}

const hardQuery: QueryParam[] = [{ name: 'hard', description: '`true` (a super-duper admin): delete the number for good rather than release it to the pool', schema: { type: 'boolean' } }];

/** The routes of a number's life and its document, the pool's search, the classifiers and the collections. */
export const numberRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'phone_numbers',
    auth: 'none',
    query: SEARCH_QUERY,
    response: searchAnswer,
    handler: (ctx, core) => {
      const master = masterAccount(core);
      return searchReply(core, ctx.query, master ? [master.id] : []);
    },
  },
  {
    method: 'GET',
    path: `${BASE}/classifiers`,
    response: { type: 'object', additionalProperties: { type: 'object', properties: { regex: { type: 'string' }, friendly_name: { type: 'string' }, pretty_print: { type: 'string' } } } },
    handler: (_ctx, core) => ({ data: availableClassifiers(core) }),
  },
  {
    method: 'GET',
    path: `${BASE}/classifiers/:number`,
    response: { type: 'object', required: ['number', 'e164'], properties: { number: { type: 'string' }, e164: { type: 'string' }, name: { type: 'string' }, friendly_name: { type: 'string' } } },
    handler: (ctx, core) => ({ data: classifyNumber(core, ctx.params.number) }),
  },
  {
    method: 'GET',
    path: `${BASE}/carriers_info`,
    response: {
      type: 'object',
      required: ['maximal_prefix_length', 'usable_carriers', 'usable_creation_states'],
      properties: { maximal_prefix_length: { type: 'integer' }, usable_carriers: { type: 'array', items: { type: 'string' } }, usable_creation_states: { type: 'array', items: { type: 'string' } } },
    },
    handler: (ctx) => ({ data: { maximal_prefix_length: 15, usable_carriers: ['local', 'managed'], usable_creation_states: creationStates(callerOf(ctx)) } }),
  },
  {
    method: 'POST',
    path: `${BASE}/check`,
    body: numberCollectionSchema,
    response: { type: 'object', additionalProperties: { enum: ['success', 'error'] } },
    handler: (ctx, core) => ({ data: checkNumbers(core, callerOf(ctx), collectionNumbers(core, dataObject(ctx))) }),
  },
  {
    method: 'POST',
    path: `${BASE}/fix/:number`,
    body: { type: 'object', description: 'nothing is read: tel keeps one record a number' },
    response: { type: 'object' },
    handler: () => ({ data: {} }),
  },
  {
    method: 'PUT',
    path: `${BASE}/collection`,
    body: numberCollectionSchema,
    response: collectionAnswer,
    errors: [409],
    handler: (ctx, core) => {
      const data = dataObject(ctx);
      const fields = collectionFields(data);
      return { data: collection(collectionNumbers(core, data), (n) => createNumber(core, callerOf(ctx), n, fields)) };
    },
  },
  ...(['POST', 'PATCH'] as const).map(
    (method): RouteDef => ({
      method,
      path: `${BASE}/collection`,
      body: numberCollectionSchema,
      response: collectionAnswer,
      handler: (ctx, core) => {
        const data = dataObject(ctx);
        const fields = collectionFields(data);
        const mode = method === 'POST' ? 'replace' : 'merge';
        return { data: collection(collectionNumbers(core, data), (n) => updateNumber(core, callerOf(ctx), n, fields, mode)) };
      },
    }),
  ),
  {
    method: 'DELETE',
    path: `${BASE}/collection`,
    query: hardQuery,
    response: collectionAnswer,
    handler: (ctx, core) => {
      const hard = flagOf(ctx, 'hard');
      return { data: collection(collectionNumbers(core, dataObject(ctx)), (n) => releaseNumber(core, callerOf(ctx), n, hard)) };
    },
  },
  {
    method: 'PUT',
    path: `${BASE}/collection/activate`,
    body: numberCollectionSchema,
    response: collectionAnswer,
    errors: [409],
    handler: (ctx, core) => {
      const data = dataObject(ctx);
      const fields = collectionFields(data);
      return { data: collection(collectionNumbers(core, data), (n) => activateNumber(core, callerOf(ctx), n, fields)) };
    },
  },
  {
    method: 'GET',
    path: ONE,
    response: numberAnswer,
    handler: (ctx, core) => ({ data: single(() => readNumber(core, callerOf(ctx), ctx.params.number)) }),
  },
  {
    method: 'PUT',
    path: ONE,
    body: phoneNumberSchema,
    response: numberAnswer,
    errors: [409],
    handler: (ctx, core) => ({ data: single(() => createNumber(core, callerOf(ctx), ctx.params.number, dataObject(ctx))) }),
  },
  ...(['POST', 'PATCH'] as const).map(
    (method): RouteDef => ({
      method,
      path: ONE,
      body: phoneNumberSchema,
      response: numberAnswer,
      handler: (ctx, core) => ({
        data: single(() => updateNumber(core, callerOf(ctx), ctx.params.number, dataObject(ctx), method === 'POST' ? 'replace' : 'merge')),
      }),
    }),
  ),
  {
    method: 'DELETE',
    path: ONE,
    query: hardQuery,
    response: numberAnswer,
    handler: (ctx, core) => ({ data: single(() => releaseNumber(core, callerOf(ctx), ctx.params.number, flagOf(ctx, 'hard'))) }),
  },
  // a number's life on request: bought from a pool, reserved, or ported in (created in `port_in`)
  ...(
    [
      ['activate', activateNumber],
      ['reserve', reserveNumber],
      ['port', (core, caller, n, body) => createNumber(core, caller, n, body, 'port_in')],
    ] as const satisfies readonly (readonly [string, typeof activateNumber])[]
  ).map(
    ([action, act]): RouteDef => ({
      method: 'PUT',
      path: `${ONE}/${action}`,
      body: phoneNumberSchema,
      response: numberAnswer,
      errors: [409],
      handler: (ctx, core) => ({ data: single(() => act(core, callerOf(ctx), ctx.params.number, dataObject(ctx))) }),
    }),
  ),
  {
    method: 'GET',
    path: `${ONE}/identify`,
    response: { type: 'object', required: ['account_id', 'number'], properties: { account_id: { type: 'string' }, number: { type: 'string' } } },
    handler: (ctx, core) => ({ data: single(() => identifyNumber(core, callerOf(ctx), ctx.params.number)) }),
  },
];
