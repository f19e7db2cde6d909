import { errors, type ApiError } from '../errors.js';
import type { Method, RouteDef } from '../http/router.js';
import { namedSchemas, schemaName, type JsonSchema } from '../schema/registry.js';
import { VERSION } from '../version.js';

/** A module's routes under its name (the document's tag). */
export interface RoutedModule {
  name: string;
  routes?: readonly RouteDef[];
}

type Json = Record<string, unknown>;

/** The error answers every route may give, and those some routes declare (`RouteDef.errors`). */
const ERROR_ANSWERS: Record<number, { name: string; description: string; example: ApiError }> = {
  400: { name: 'Invalid', description: 'The body is not JSON, or a field does not validate: `data` is `{field: {rule: {message, target?, value?}}}`', example: errors.invalidField('name', 'required', 'Field is required but missing') },
  401: { name: 'Unauthorized', description: 'The token is missing, unknown or expired (the same body for all three)', example: errors.invalidCredentials() },
  402: { name: 'ChargesNotAccepted', description: 'The change incurs charges: send `accept_charges: true` to accept those under `data.limits`', example: errors.acceptCharges({ limits: { inbound_trunks: { item: 'inbound_trunks', quantity: 11, rate: 6.99 } } }) },
  403: { name: 'Forbidden', description: 'The token may not do this: `data.cause` says why (token restrictions add `step` and `reason`)', example: errors.restricted({ step: 'verb', reason: 'Verb: key `#` allows GET, not POST.' }) },
  404: { name: 'NotFound', description: 'No such path, account or document (`data.cause` names the id)', example: errors.badIdentifier('0123456789abcdef0123456789abcdef') },
  405: { name: 'MethodNotAllowed', description: 'The path does not take this method; `Allow` lists those it takes', example: errors.methodNotAllowed(['GET', 'PUT']) },
  409: { name: 'Conflict', description: 'The document changed between its read and its write: read it again', example: errors.conflict() },
  412: { name: 'PreconditionFailed', description: 'The `If-Match` revision is not the stored one, or a creation (PUT) was sent an `If-Match`', example: errors.preconditionFailed('the document\'s revision is 2-…, not 1-…') },
  413: { name: 'TooLarge', description: 'The body is larger than 16 MiB (64 KiB without a valid token)', example: errors.tooLarge(16 * 1024 * 1024) },
  415: {
    name: 'UnsupportedMediaType',
    description: "The body's Content-Type is not one the endpoint reads (JSON, a form, CSV; the upload routes: the files they store); `data.accepted` lists them",
    example: errors.unsupportedMediaType(['image/png', 'image/jpeg', 'image/gif']),
  },
  429: { name: 'TooManyRequests', description: 'Too many failed logins: retry after `Retry-After` seconds', example: errors.tooManyLogins(30) },
  500: { name: 'Failed', description: "What Kazoo answers 500 for besides a crash, with its message: no rate found for a number, a quickcall with no endpoint to ring (`unspecified_fault`)", example: errors.noRate() },
  503: { name: 'Unavailable', description: 'The database file cannot be used now (held by another process a while, an I/O error, read-only): retry after `Retry-After` seconds', example: errors.datastoreTimeout() },
  507: { name: 'StorageFull', description: 'The disk holding the database is full: nothing is written until space is freed (reads go on); retry after `Retry-After` seconds', example: errors.datastoreFull() },
};

/**
 * The OpenAPI 3.1 document of the routes tel serves, made from the modules' route declarations:
 * paths and methods, path and query parameters, who may call (a token, a super-duper admin's,
 * none), the request bodies (`{data: …}` around the JSON Schema the handler validates with), what
 * each answers under `data`, the envelope and the error answers of the one error catalogue. The
 * document kinds' schemas, and those they refer to, are components named as Kazoo names its
 * schema files (`users`, `caller_id`, `callflows.device`); a PATCH body is the kind's `<name>_patch`,
 * which requires nothing.
 */
export function openApiDocument(modules: readonly RoutedModule[]): Json {
  const paths: Record<string, Json> = {};
  for (const m of modules) {
    for (const route of m.routes ?? []) {
      const path = `/${route.path.replace(/:(\w+)/g, '{$1}')}`;
      paths[path] ??= {};
      paths[path][route.method.toLowerCase()] = operation(m.name, route);
    }
  }
  const named: Record<string, Json> = {};
  for (const [name, schema] of namedSchemas()) {
    named[name] = openApiSchema(schema, schema);
    if (Array.isArray(schema.required)) named[`${name}_patch`] = openApiSchema(withoutRequired(schema), schema);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tel',
      version: VERSION,
      description:
        "A telephony platform's management API, Kazoo-compatible. Every answer is Kazoo's envelope; a request body is `{data: …}` (flags such as `accept_charges` beside `data`). HEAD answers wherever GET does, OPTIONS everywhere (CORS). Kazoo's request features hold on every path: a listing takes Kazoo's filters (`filters`); a GET answers CSV for `Accept: text/csv` or `?accept=csv`; a document's GET carries `ETag` (its revision: `If-None-Match` → 304, a stale `If-Match` on a write → 412); a POST stands for the verb of `?verb=` or of the envelope's `verb` (`DELETE`, `PUT`, `PATCH`); a creation names its id in `Location`; `?jsonp=name` answers `name(envelope);` as application/javascript.",
    },
    servers: [{ url: '/v2' }, { url: '/v1' }],
    security: [{ authToken: [] }],
    paths,
    components: {
      securitySchemes: {
        authToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token', description: 'A token from PUT /user_auth or /api_auth (also taken as `Authorization: Bearer` or `?auth_token=`)' },
      },
      schemas: {
        ...named,
        Envelope: envelope('success', {}),
        ErrorEnvelope: envelope('error', { type: ['object', 'array'] }),
        ValidationErrors: {
          type: 'object',
          description: 'Kazoo-shaped validation details: `{field: {rule: {message, target?, value?}}}`',
          additionalProperties: {
            type: 'object',
            additionalProperties: { type: 'object', required: ['message'], properties: { message: { type: 'string' }, target: {}, value: {} } },
          },
        },
      },
      responses: Object.fromEntries(Object.values(ERROR_ANSWERS).map((e) => [e.name, errorResponse(e)])),
    },
  };
}

function operation(tag: string, route: RouteDef): Json {
  const params: Json[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  for (const q of route.query ?? []) {
    // a family of parameters (the filters) is an object exploded into the query string
    const style = q.family ? { style: 'form', explode: true } : {};
    params.push({ name: q.name, in: 'query', description: q.description, ...style, schema: openApiSchema(q.schema) });
  }
  const op: Json = {
    operationId: `${route.method.toLowerCase()}_${route.path.replace(/[:/]+/g, '_').replace(/[^\w]/g, '_')}`,
    tags: [tag],
    summary: `${route.method} /${route.path}`,
  };
  if (params.length > 0) op.parameters = params;
  if (route.auth === 'none') op.security = [];
  else if (route.superduper) op.description = 'Needs a super-duper admin token.';
  const body = requestBody(route);
  if (body) op.requestBody = body;
  // PUT creates (201); a route may name a second success (a collection that created nothing: 200)
  const successes = [route.method === 'PUT' ? 201 : 200, ...(route.errors ?? []).filter((s) => s < 400)];
  op.responses = {
    ...Object.fromEntries(successes.map((s) => [String(s), successAnswer(route)])),
    ...Object.fromEntries(statuses(route).map((s) => [String(s), { $ref: `#/components/responses/${ERROR_ANSWERS[s].name}` }])),
  };
  if (route.method === 'GET' && !route.raw) op.responses = { ...(op.responses as Json), 304: NOT_MODIFIED };
  return op;
}

/** A GET's answer to a client whose copy is current (`If-None-Match` names the document's revision). */
const NOT_MODIFIED = { description: "Not modified: `If-None-Match` names the revision (`ETag`) of the document, which has not changed since; no body" };

/** A route's success: the envelope with what it answers under `data`, or the file it answers instead. */
function successAnswer(route: RouteDef): Json {
  if (route.raw) {
    const schema = route.raw === 'application/json' ? { type: 'object' } : { type: 'string', contentMediaType: route.raw };
    return { description: 'Success: the file itself', content: { [route.raw]: { schema } } };
  }
  const schema = route.response
    ? { allOf: [{ $ref: '#/components/schemas/Envelope' }, { required: ['data'], properties: { data: openApiSchema(route.response) } }] }
    : { $ref: '#/components/schemas/Envelope' };
  // (a GET's CSV form, `accept`, is no second media type here: a generated client would have to tell the two apart)
  return { description: 'Success: the envelope, the answer under `data`', content: { 'application/json': { schema } } };
}

/** The error statuses a route may answer. */
function statuses(route: RouteDef): number[] {
  const out = [400, 404, 405, 503];
  if (route.auth !== 'none') out.push(401, 403);
  if (hasBody(route.method)) out.push(413, 415);
  if (route.method !== 'GET' && route.method !== 'PUT') out.push(409);
  if (route.method !== 'GET') out.push(412);
  // the file may be unusable a while for any request; only writes need space
  if (route.method !== 'GET') out.push(507);
  out.push(...(route.errors ?? []).filter((s) => s >= 400));
  return [...new Set(out)].sort((a, b) => a - b);
}

const hasBody = (method: Method) => method === 'PUT' || method === 'POST' || method === 'PATCH';

function requestBody(route: RouteDef): Json | undefined {
  if (route.upload) {
    return {
      required: true,
      content: {
        'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } },
        'application/x-base64': { schema: { type: 'string', contentEncoding: 'base64' } },
      },
    };
  }
  if (!route.body) return undefined;
  // PATCH merges: no field is required of it
  const name = schemaName(route.body);
  const data =
    route.method !== 'PATCH' ? openApiSchema(route.body)
    : name && Array.isArray(route.body.required) ? { $ref: `#/components/schemas/${name}_patch` }
    : openApiSchema(withoutRequired(route.body));
  return {
    required: true,
    content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data } } } },
  };
}

function withoutRequired(schema: JsonSchema): JsonSchema {
  const { required: _r, ...rest } = schema;
  return rest;
}

/**
 * A JSON Schema as the document shows it: a named schema met inside another is a reference to its
 * component, and so is a `$ref` by name (`{$ref: "caller_id"}` → `#/components/schemas/caller_id`).
 * `self`, when given, is the named schema being written out (not a reference to itself).
 */
function openApiSchema(schema: JsonSchema, self?: JsonSchema): Json {
  const name = schemaName(schema);
  if (name && schema !== self) return { $ref: `#/components/schemas/${name}` };
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out[k] = `#/components/schemas/${v}`;
    else out[k] = openApiValue(v);
  }
  return out;
}

function openApiValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(openApiValue);
  if (v !== null && typeof v === 'object') return openApiSchema(v as JsonSchema);
  return v;
}

function envelope(status: 'success' | 'error', data: Json): Json {
  const properties: Json = {
    auth_token: { type: 'string' },
    data,
    node: { type: 'string' },
    request_id: { type: 'string' },
    status: { const: status },
    timestamp: { type: 'string', description: 'ISO 8601 UTC, to the second, without a zone (as Kazoo writes it)' },
    version: { type: 'string', description: 'told only to a caller whose token was checked' },
  };
  if (status === 'success') Object.assign(properties, { revision: { type: 'string' }, page_size: { type: 'integer' }, start_key: {}, next_start_key: {} });
  else Object.assign(properties, { error: { type: 'string', description: 'the HTTP status' }, message: { type: 'string', description: "Kazoo's error name" } });
  // a success may carry no data (a token's deletion); an error always does
  const required = status === 'success' ? ['node', 'request_id', 'status', 'timestamp'] : ['data', 'node', 'request_id', 'status', 'timestamp'];
  return { type: 'object', required, properties };
}

function errorResponse(e: (typeof ERROR_ANSWERS)[number]): Json {
  // a 400 names the fields that failed, or (a request HTTP cannot read, an app already installed) says why
  // a 404 of a key a module looks up (a SIP username) lists it, as Kazoo's response_bad_identifier/2 does
  const data =
    e.example.status === 400
      ? { anyOf: [{ $ref: '#/components/schemas/ValidationErrors' }, { type: 'object', required: ['message'], properties: { message: { type: 'string' }, cause: {} } }] }
      : e.example.status === 404
        ? { anyOf: [{ type: 'object' }, { type: 'array', items: { type: 'string' } }] }
        : { type: 'object' };
  const out: Json = {
    description: e.description,
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { properties: { data } }] },
        example: { data: e.example.data, error: String(e.example.status), message: e.example.kazooMessage, status: 'error' },
      },
    },
  };
  const headers = Object.keys(e.example.headers);
  if (headers.length > 0) out.headers = Object.fromEntries(headers.map((h) => [h, { schema: { type: 'string' } }]));
  return out;
}
