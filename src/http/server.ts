import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
// the module's binding, not the global (a getter that each request would call twice)
import { performance } from 'node:perf_hooks';
import { createHash, randomBytes } from 'node:crypto';
import type { Core } from '../core-type.js';
import { authenticate } from '../modules/auth/service.js';
import { findAccount } from '../modules/accounts/service.js';
import { checkAccountAccess } from './authorize.js';
import { parsePath, type ParsedPath } from '../api-path.js';
import type { RequestContext } from './context.js';
import { corsHeaders, loginCorsHeaders, originPolicy, type OriginPolicy } from './cors.js';
import { dataJson, envelopeHead, envelopeTail, errorEnvelope, successAnswer } from './envelope.js';
import { ApiError, errors, storageError } from '../errors.js';
import { accessEntry, type AccessEntry } from './access-log.js';
import { DOCUMENT_BODY_LIMITS, UNLIMITED_BODY, parseEnvelope, type BodyLimits } from '../util/json.js';
import { requiresToken, type Reply, type RouteDef, type RouteMatch, type Router } from './router.js';
import { mediaTypeOf, readsAsEnvelope, uploadOf } from './request.js';
import { etagOf, JSONP_TYPE, jsonpOf, jsonpText, notModified, wantsCsv } from './answer-forms.js';
import { csvPieces, csvText, CSV_FILE_NAME } from './csv.js';
import { checkWriteHeaders, locate, tunnelledVerb, verbOf } from './write-headers.js';
import { isBusy } from '../store/db.js';
import { countRefused, noteStorageFault } from '../store/health.js';
import type { HostGuard } from './host-guard.js';
import { checkMetricsAccess, metricsText, observeRequest, routeLabels } from './metrics.js';
import { LARGE_BODY_BYTES, largeBodySlot } from './body-gate.js';
import { noteRequest } from './memory.js';
import { keepTickShape } from './tick-shape.js';
import { nextTurn } from '../util/timers.js';
import type { FilePieces } from '../util/file-pieces.js';

// node:http through require: an ESM import makes Node build its module facade, whose getters load
// Node's internal fetch (undici) — an eighth of every command's start-up, for a server most
// commands never start.
const { createServer, STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** The largest request body accepted (bulk number jobs of 100,000 numbers fit). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The largest body read before the token is known to be valid: a client without a valid token
 * cannot make the server buffer and parse 16 MiB. Logins and small writes fit well within it.
 */
export const MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024;

const JSON_TYPE = 'application/json';

/**
 * How long a client may take: its request's headers, the whole request (408 beyond either; slow
 * clients hold only their own connection), and an idle keep-alive connection before it is closed.
 */
const HEADERS_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 300_000;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How long a connection refused as malformed is drained before it is dropped. */
const CLIENT_ERROR_LINGER_MS = 5_000;
const answeredSockets = new WeakSet<Duplex>();

// Request ids: a random per-process prefix and a counter — unique, and cheaper than 16 random bytes a request.
const ID_PREFIX = randomBytes(10).toString('hex');
let idCounter = 0;
function nextRequestId(): string {
  idCounter = (idCounter + 1) % 0xffffffffff;
  return ID_PREFIX + idCounter.toString(16).padStart(12, '0');
}

/** Reads the token the way Kazoo does: header, then `Authorization: Bearer`, then query or envelope. */
function tokenOf(req: IncomingMessage, query: URLSearchParams, envelope: Record<string, unknown>): string | undefined {
  const header = req.headers['x-auth-token'];
  if (typeof header === 'string' && header) return header;
  const authz = req.headers.authorization;
  if (typeof authz === 'string' && /^bearer\s+/i.test(authz)) return authz.replace(/^bearer\s+/i, '');
  const q = query.get('auth_token');
  if (q) return q;
  return typeof envelope.auth_token === 'string' ? envelope.auth_token : undefined;
}

/** The client went away while sending its body: nothing to answer, nothing to log. */
class ClientGone extends Error {}

/**
 * Reads a body of at most `maxBytes`. A larger one is refused with 413, answered once the client
 * has sent it (read and dropped, never kept) so that the client can read the answer rather than
 * see its connection closed under it; a body beyond MAX_BODY_BYTES is answered at once.
 */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      const err = errors.tooLarge(maxBytes);
      if (declared > MAX_BODY_BYTES || size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(err);
      } else drain(req).then(() => reject(err));
    };
    const declared = Number(req.headers['content-length']);
    let size = 0;
    if (declared > maxBytes) {
      tooLarge();
      return;
    }
    // A declared length is the whole body's (node:http frames by it): the chunks are copied into
    // one buffer as they come, rather than kept and joined (which holds the body twice).
    const whole = declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let refused = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (refused) {
        if (size > MAX_BODY_BYTES) tooLarge();
        return;
      }
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        tooLarge();
        return;
      }
      if (whole) c.copy(whole, size - c.length);
      else chunks.push(c);
    });
    req.on('end', () => {
      if (!refused) resolve(whole ? whole.subarray(0, Math.min(size, whole.length)) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', () => reject(new ClientGone('client closed the request')));
  });
}

/** Reads a request's body to its end without keeping it. */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.resume();
  });
}

/** A path parsed and looked up in the router: what every request of that method and path shares. */
interface Routed {
  path: ParsedPath;
  match: RouteMatch | undefined;
  /** its route and method as `/metrics` labels them */
  labels: string;
}

/** The longest path whose parse is remembered; the most remembered before starting over. */
const MAX_ROUTED_PATH_CHARS = 1024;
const MAX_ROUTED = 10_000;
/** Parsed paths of a router, by method then path (a key joining the two cost a string a request). */
interface RoutedPaths {
  byMethod: Map<string, Map<string, Routed>>;
  /** paths remembered, all methods together */
  size: number;
}
const routedBy = new WeakMap<Router, RoutedPaths>();

/**
 * Parses a path and finds its route, once per method and path: clients repeat the same few paths
 * (an account, its hooks, its simulations). The result is frozen, since requests share it. Long
 * or many made-up paths cannot grow the memory: past the budgets, they are parsed each time.
 */
function routeOf(router: Router, method: string, pathOnly: string): Routed {
  let known = routedBy.get(router);
  if (!known) routedBy.set(router, (known = { byMethod: new Map(), size: 0 }));
  const hit = known.byMethod.get(method)?.get(pathOnly);
  if (hit) return hit;
  const path = parsePath(pathOnly, router.endpoints);
  const match = path.invalid || !path.version ? undefined : router.match(method, path.segments);
  const routed = freezeRouted({ path, match, labels: routeLabels(match?.route?.path ?? '', method) });
  if (pathOnly.length <= MAX_ROUTED_PATH_CHARS) {
    if (known.size >= MAX_ROUTED) {
      known.byMethod.clear();
      known.size = 0;
    }
    let byPath = known.byMethod.get(method);
    if (!byPath) known.byMethod.set(method, (byPath = new Map()));
    byPath.set(pathOnly, routed);
    known.size++;
  }
  return routed;
}

function freezeRouted(r: Routed): Routed {
  for (const res of r.path.resources) Object.freeze(res.args), Object.freeze(res);
  Object.freeze(r.path.resources);
  Object.freeze(r.path.segments);
  Object.freeze(r.path.args);
  Object.freeze(r.path);
  if (r.match) {
    Object.freeze(r.match.params);
    Object.freeze(r.match.allowed);
    Object.freeze(r.match);
  }
  return Object.freeze(r);
}

/** How a server answers beyond its routes: whose Host it serves, which pages may log in through browsers. */
export interface ServerPolicy {
  /** refuses requests for Host names a loopback server does not serve (DNS rebinding) */
  guard?: HostGuard;
  /** the pages allowed the login routes' CORS (default: loopback pages only) */
  origins?: OriginPolicy;
  /** `GET /metrics` answers any client, not only loopback ones and super-duper admin tokens */
  openMetrics?: boolean;
  /** called once a request's answer has ended (`tel serve --access-log`) */
  accessLog?: (entry: AccessEntry) => void;
  /** false: its requests are left out of the metrics and of the memory tidy's count (the warm-up of connection paths: warm-paths.ts) */
  counted?: boolean;
}

const LOOPBACK_PAGES = originPolicy();

/** The CORS headers of an answer given before its path is known (and of errors without one). */
const UNROUTED_CORS = corsHeaders(Object.freeze([]));

/** The query of a request without one: shared (handlers read queries, never change them). */
const NO_QUERY = new URLSearchParams();

/**
 * Handles one request through the order of checks: JSON → token → restrictions/access → route →
 * handler. Reading the body (bodyOf), the token (authorize) and writing the answer (answer) are
 * functions of their own: V8 optimises this one again each time a new kind of request changes what
 * it has seen, and the larger it is, the longer the compile: 34-57 ms with the three inside it,
 * 16-37 ms without (`--trace-opt` while `scripts/bench/scale.mjs` runs, compiled on the event
 * loop's thread; now on V8's compiler threads, see bin/tel.js).
 */
export async function handleRequest(core: Core, router: Router, req: IncomingMessage, res: ServerResponse, policy: ServerPolicy = {}): Promise<void> {
  const started = performance.now();
  const incomingId = req.headers['x-request-id'];
  const requestId = typeof incomingId === 'string' && /^[\w-]{1,64}$/.test(incomingId) ? incomingId : nextRequestId();
  let cors = UNROUTED_CORS;
  let authToken: string | undefined;
  let authenticated = false;
  let metricLabels = UNROUTED_LABELS;
  let releaseSlot: (() => void) | undefined;
  /** the function a JSONP answer calls, once the request is read (`?jsonp=`) */
  let jsonp: string | undefined;
  /** the answer's body bytes, for the access log (null: streamed) */
  let bytes: number | null = 0;
  try {
    if (policy.guard && !policy.guard(req.headers.host)) {
      throw errors.forbidden('the Host header names neither this machine nor an allowed host (tel serve --allowed-host)');
    }
    // HEAD is a GET whose body node:http leaves out, as Kazoo allows it wherever GET is.
    const requested = (req.method ?? 'GET').toUpperCase();
    let method = requested === 'HEAD' ? 'GET' : requested;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const query = q >= 0 ? new URLSearchParams(url.slice(q + 1)) : NO_QUERY;
    // A POST stands for the verb it tunnels (`?verb=`, or the envelope's, read below), routed and
    // checked as that verb (api_resource:determine_http_verb/2); the path is parsed once either way.
    const queryVerb = method === 'POST' && q >= 0 ? tunnelledVerb(query.get('verb')) : undefined;
    if (queryVerb) method = queryVerb;
    const routed = routeOf(router, method, q >= 0 ? url.slice(0, q) : url);
    const { path } = routed;
    let { match } = routed;
    metricLabels = routed.labels;
    let allowed = match?.allowed ?? [];
    cors = corsOf(match, allowed, req, policy);
    if (requested === 'OPTIONS') {
      // read (and drop) any body first: closing on unread bytes would reset the connection
      await drain(req);
      bytes = send(res, 200, undefined, { ...corsOf(match, preflightMethods(allowed, req), req, policy), 'X-Request-ID': requestId });
      return;
    }
    // A request without Content-Length or Transfer-Encoding has no body (RFC 9112): nothing to wait for.
    const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    let raw: Buffer | undefined;
    if (!bodiless) {
      const limit = bodyLimit(core, req, query, requiresToken(match));
      const declared = Number(req.headers['content-length'] ?? NaN);
      // a body that may be large waits for a slot first (see body-gate.ts); released when answered
      if (limit > LARGE_BODY_BYTES && !(declared <= LARGE_BODY_BYTES)) releaseSlot = await largeBodySlot(!match?.route?.unparsedLargeBody);
      raw = await readBody(req, limit);
    }
    const { mediaType, upload, unparsed, envelope } = bodyOf(req, raw, match?.route);
    jsonp = jsonpOf(query, envelope, envelope.data);
    const envelopeVerb = requested === 'POST' && !queryVerb ? tunnelledVerb(verbOf(envelope)) : undefined;
    if (envelopeVerb) {
      method = envelopeVerb;
      match = path.invalid || !path.version ? undefined : router.match(method, path.segments);
      metricLabels = routeLabels(match?.route?.path ?? '', method);
      allowed = match?.allowed ?? [];
    }
    authToken = tokenOf(req, query, envelope);
    const ctx: RequestContext = {
      method,
      url,
      path,
      query,
      headers: req.headers,
      envelope,
      data: envelope.data,
      requestId,
      params: match?.params ?? {},
      remoteAddress: req.socket.remoteAddress,
      authToken,
      upload,
      unparsedBody: unparsed,
    };
    const route = match?.route;
    const needsToken = requiresToken(match);
    authorize(core, router, ctx, needsToken, () => (authenticated = true));
    // A super-duper-only path is refused before saying whether the method or sub-path exists.
    if (needsToken && (match?.superduper || route?.superduper) && !ctx.auth?.isSuperduper) {
      throw errors.forbidden('this endpoint needs a super-duper admin token');
    }
    if (!route) {
      throw allowed.length > 0 ? errors.methodNotAllowed(allowed) : errors.notFound();
    }
    if (method === 'PUT' || method === 'POST' || method === 'PATCH') checkWriteHeaders(req, method, mediaType, route.upload === true);
    // most handlers answer at once: awaited only when they answer a promise (a turn of microtasks saved)
    const answered = route.handler(ctx, core);
    const reply: Reply = answered instanceof Promise ? await answered : answered;
    authToken = ctx.authToken;
    bytes = await answer({ core, req, res, method, headOnly: requested === 'HEAD', requestId, authToken, authenticated, jsonp, cors, query, envelope }, reply);
  } catch (err) {
    if (err instanceof ClientGone) return;
    bytes = sendError(res, err instanceof ApiError ? err : internal(core, err, requestId), requestId, { authToken, authenticated, cors, jsonp });
  } finally {
    releaseSlot?.();
    if (res.headersSent) {
      if (policy.counted !== false) observeRequest(metricLabels, res.statusCode, (performance.now() - started) / 1000);
      policy.accessLog?.(accessEntry(req, { status: res.statusCode, bytes, requestId, startedMs: started }));
    }
  }
}

/** A request's body as its route takes it: an upload, a large body left unparsed, or the envelope. */
function bodyOf(req: IncomingMessage, raw: Buffer | undefined, route: RouteDef | undefined) {
  const mediaType = mediaTypeOf(req.headers['content-type']);
  const upload = raw && route?.upload ? uploadOf(req.headers['content-type'], raw) : undefined;
  // read only with a valid token (see bodyLimit): its handler parses it, off the event loop
  const unparsed = raw && route?.unparsedLargeBody && raw.length > MAX_UNAUTHENTICATED_BODY_BYTES ? raw : undefined;
  // a body of another type is not the envelope (Kazoo reads it as a file: a write is a 415 below)
  const envelope = raw === undefined || upload || unparsed || !readsAsEnvelope(mediaType) ? {} : parseEnvelope(raw, bodyLimitsOf(route));
  return { mediaType, upload, unparsed, envelope };
}

/**
 * Checks the token of a request whose route needs one, the router's authorizers and the account
 * its path names; a token sent where none is needed is checked too. Sets `ctx.auth`, and tells
 * `authenticated` as soon as the token is known good (an error after it is answered as to an
 * authenticated caller).
 */
function authorize(core: Core, router: Router, ctx: RequestContext, needsToken: boolean, authenticated: () => void): void {
  if (needsToken) {
    const auth = authenticate(core, ctx.authToken);
    ctx.auth = auth;
    authenticated();
    for (let i = 0; i < router.authorizers.length; i++) router.authorizers[i](ctx, auth, core);
    // A path names an account the token may act on (an unknown one is refused the same, so that
    // nobody learns which ids exist), then an existing one (404, as Kazoo, for a super-duper admin).
    checkAccountAccess(ctx, auth, core);
    if (ctx.path.accountId && !findAccount(core, ctx.path.accountId)) throw errors.badIdentifier(ctx.path.accountId);
  } else if (ctx.authToken) {
    // A token sent where none is needed is still checked: a valid one makes the answer an
    // authenticated one (with `version`), as Kazoo checks any token present; a bad one is ignored.
    try {
      ctx.auth = authenticate(core, ctx.authToken);
      authenticated();
    } catch {
      /* answered as to an anonymous caller */
    }
  }
}

/** What answering a handler's reply needs besides the reply: the request as handleRequest read it. */
interface Answering {
  core: Core;
  req: IncomingMessage;
  res: ServerResponse;
  /** the verb the request stands for (a POST's tunnelled one) */
  method: string;
  headOnly: boolean;
  requestId: string;
  authToken: string | undefined;
  authenticated: boolean;
  jsonp: string | undefined;
  cors: Readonly<Record<string, string>>;
  query: URLSearchParams;
  envelope: Record<string, unknown>;
}

/**
 * Writes a handler's reply: the envelope, a file, a streamed listing or CSV, or a 304 for a client
 * holding the document's revision. Answers the body's bytes for the access log (null: streamed).
 */
async function answer(a: Answering, reply: Reply): Promise<number | null> {
  const { core, req, res, method, headOnly, requestId, authToken, authenticated, jsonp } = a;
  const status = reply.status ?? (method === 'PUT' ? 201 : 200);
  // As Kazoo: a success carries the CORS headers when the request is a CORS one (a browser's,
  // with `Origin`); an error always does (see sendError). A non-browser client is spared five
  // headers a response, which node:http checks one by one (~2 µs of a request's 15-20).
  const headers: Record<string, string> = isCorsRequest(req) ? Object.assign({}, a.cors) : {};
  headers['X-Request-ID'] = requestId;
  if (reply.headers) Object.assign(headers, reply.headers);
  // crossbar_doc:handle_json_success/3 names what a PUT created in `Location`: its id
  if (status === 201 && method === 'PUT') locate(headers, reply.data);
  if (method === 'GET') {
    // a document's answer is tagged with its revision (generate_etag/2); a client holding it is answered 304
    const revision = reply.extras?.revision;
    if (typeof revision === 'string' && (reply.data !== undefined || reply.stream !== undefined)) {
      headers.ETag = etagOf(revision);
      if (req.headers['if-none-match'] !== undefined && notModified(req.headers, revision)) return send(res, 304, undefined, headers);
    }
    if (hasRows(reply) && wantsCsv(req.headers, a.query, a.envelope, a.envelope.data)) {
      return sendCsv(res, headers, reply, headOnly, (err) => void internal(core, err, requestId));
    }
  }
  if (reply.stream) {
    const { stream, extras } = reply;
    headers['Content-Type'] = jsonp ? JSONP_TYPE : JSON_TYPE;
    await sendStream(
      res,
      status,
      headers,
      stream.pieces,
      headOnly,
      (jsonp ? `${jsonp}(` : '') + envelopeHead(authToken),
      (dataMd5) => envelopeTail(dataMd5, requestId, { ...extras, ...stream.extras?.() }, authenticated) + (jsonp ? ');' : ''),
      // reported as any request's failure (a storage fault by its episode), though it can no longer be answered
      (err) => void internal(core, err, requestId),
    );
    return null;
  }
  if (Buffer.isBuffer(reply.file)) return send(res, status, reply.file, headers);
  if (reply.file) return sendFile(res, status, reply.file, headers, headOnly);
  const envelope = successAnswer(reply.json ?? dataJson(reply.data), requestId, authToken, reply.extras, authenticated);
  if (jsonp) return send(res, status, Buffer.from(jsonpText(jsonp, envelope.text)), { ...headers, 'Content-Type': JSONP_TYPE });
  return send(res, status, envelope.text, headers, envelope.bytes);
}

/** The labels of a request refused before its path was looked at (a Host the server does not answer). */
const UNROUTED_LABELS = routeLabels('', '');

/** `GET /metrics`: the server's health in Prometheus' text format (no CORS headers: not for web pages). */
function answerMetrics(core: Core, req: IncomingMessage, res: ServerResponse, policy: ServerPolicy): void {
  const startedMs = performance.now();
  const requestId = nextRequestId();
  let bytes: number;
  try {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (method !== 'GET') throw errors.methodNotAllowed(['GET']);
    checkMetricsAccess(core, req, policy.openMetrics === true);
    bytes = send(res, 200, Buffer.from(metricsText(core)), { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'X-Request-ID': requestId });
  } catch (err) {
    bytes = sendError(res, err instanceof ApiError ? err : internal(core, err, requestId), requestId);
  }
  policy.accessLog?.(accessEntry(req, { status: res.statusCode, bytes, requestId, startedMs }));
}

/** A document's limits, strings of any length (a file sent as base64). */
const UPLOAD_BODY: BodyLimits = { ...DOCUMENT_BODY_LIMITS, stringBytes: Infinity };

/**
 * What a route's JSON body may hold: a route that parses its own large bodies (a number job's
 * list) takes a small one of any width; one that takes files, strings of any length.
 */
function bodyLimitsOf(route: RouteDef | undefined): BodyLimits {
  return route?.unparsedLargeBody ? UNLIMITED_BODY : route?.upload ? UPLOAD_BODY : DOCUMENT_BODY_LIMITS;
}

/**
 * How many body bytes to read: the full maximum once a header or query token is known to be valid,
 * else 64 KiB. Checked only when the body may be large (declared over 64 KiB, or chunked), so the
 * order of checks of small requests (bad JSON 400 before 401) is unchanged and GETs pay nothing.
 */
function bodyLimit(core: Core, req: IncomingMessage, query: URLSearchParams, needsToken: boolean): number {
  const declared = Number(req.headers['content-length'] ?? 0);
  const mayBeLarge = declared > MAX_UNAUTHENTICATED_BODY_BYTES || req.headers['transfer-encoding'] !== undefined;
  if (!mayBeLarge || !needsToken) return mayBeLarge ? MAX_UNAUTHENTICATED_BODY_BYTES : MAX_BODY_BYTES;
  try {
    authenticate(core, tokenOf(req, query, {}));
    return MAX_BODY_BYTES;
  } catch {
    return MAX_UNAUTHENTICATED_BODY_BYTES;
  }
}

/** Answers an error as the envelope; nothing when an answer has already begun. */
function sendError(
  res: ServerResponse,
  err: ApiError,
  requestId: string,
  seen: { authToken?: string; authenticated?: boolean; cors?: Readonly<Record<string, string>>; jsonp?: string } = {},
): number {
  const envelope = errorEnvelope(err, requestId, seen.authToken, seen.authenticated ?? false);
  const headers = { ...(seen.cors ?? UNROUTED_CORS), 'X-Request-ID': requestId, ...err.headers };
  // as Kazoo's create_resp_content/2, an error is a JSONP call too when one was asked for
  if (seen.jsonp) return send(res, err.status, Buffer.from(jsonpText(seen.jsonp, JSON.stringify(envelope))), { ...headers, 'Content-Type': JSONP_TYPE });
  return send(res, err.status, envelope, headers);
}

/** The CORS headers of an answer on a path: any page's (Kazoo's `*`), or for logins the allowed pages' only. */
function corsOf(match: RouteMatch | undefined, methods: readonly string[], req: IncomingMessage, policy: ServerPolicy): Readonly<Record<string, string>> {
  return match?.originsOnly ? loginCorsHeaders(methods, req.headers.origin, policy.origins ?? LOOPBACK_PAGES) : corsHeaders(methods);
}

/** A CORS request, as Kazoo tells one: it carries `Origin` or asks about a method or headers. */
function isCorsRequest(req: IncomingMessage): boolean {
  const h = req.headers;
  return h.origin !== undefined || h['access-control-request-method'] !== undefined || h['access-control-request-headers'] !== undefined;
}

const PREFLIGHT_METHODS = new Set(['GET', 'PUT', 'POST', 'PATCH', 'DELETE']);

/**
 * The methods a preflight answers: the path's, plus the one the browser asks about (as Kazoo
 * does), so that the real request is sent and its 404 or 405 envelope reaches the client.
 */
function preflightMethods(allowed: string[], req: IncomingMessage): string[] {
  const asked = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
  return PREFLIGHT_METHODS.has(asked) && !allowed.includes(asked) ? [...allowed, asked] : allowed;
}

/**
 * The answer for an error no handler turned into one: a lock held too long, a storage fault (the
 * episode logs it, once), or a 500 whose stack goes to the log.
 */
function internal(core: Core, err: unknown, requestId: string): ApiError {
  if (isBusy(err)) return errors.datastoreTimeout();
  const fault = noteStorageFault(core.db, err);
  if (fault) {
    countRefused(core.db);
    return storageError(fault);
  }
  process.stderr.write(`tel: request ${requestId} failed: ${(err as Error)?.stack ?? String(err)}\n`);
  return errors.internal();
}

/**
 * Answers `body` (JSON text, an object to serialise, a file's bytes typed by `headers`; undefined:
 * no body); `bytes`, the body's length when the caller knows it.
 */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>, bytes?: number): number {
  if (res.headersSent) return 0;
  const text = body === undefined ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const all: Record<string, string | number> = headers;
  if (body !== undefined && !Buffer.isBuffer(body)) all['Content-Type'] = JSON_TYPE;
  const length = bytes ?? Buffer.byteLength(text);
  all['Content-Length'] = length;
  res.writeHead(status, all);
  res.end(text);
  return length;
}

/** Answers a file in pieces (see FilePieces), each as the client takes it, with a turn of the event loop between. */
async function sendFile(res: ServerResponse, status: number, file: FilePieces, headers: Record<string, string>, headOnly: boolean): Promise<number> {
  res.writeHead(status, { ...headers, 'Content-Length': file.length });
  if (headOnly) {
    res.end();
    return file.length;
  }
  for (const piece of file.pieces) {
    if (!res.write(piece)) await drained(res);
    await nextTurn();
    if (res.destroyed) return 0;
  }
  res.end();
  return file.length;
}

/** Resolves once `res` may be written again (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Answers a streamed body (chunked, typed by `headers`): its head, each piece as the client takes
 * it (waiting for `drain` when the socket's buffer is full) with a turn of the event loop between
 * pieces (an empty piece is only that turn), then the tail, told the md5 of what the pieces wrote
 * (an envelope's revision). A client that goes away stops the reading. The first piece is read
 * before the status is sent, so that an answer that cannot begin is answered as the error it is
 * (with `emptyIs204`, the pieces are read until one says something: an answer with nothing to
 * say is a 204); a piece that fails once the answer has begun is reported by `failed` and cuts
 * the answer short without its last chunk, so that no client takes the text read so far for the
 * whole.
 */
async function sendStream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  stream: Iterable<string>,
  headOnly: boolean,
  head: string,
  tail: (dataMd5: string) => string,
  failed: (err: unknown) => void,
  emptyIs204 = false,
): Promise<void> {
  const pieces = stream[Symbol.iterator]();
  try {
    let next = headOnly ? undefined : pieces.next();
    while (emptyIs204 && next && !next.done && next.value === '') {
      await nextTurn();
      if (res.destroyed) return;
      next = pieces.next();
    }
    if (emptyIs204 && next?.done) {
      send(res, 204, undefined, headers);
      return;
    }
    res.writeHead(status, headers);
    if (!next) {
      res.end();
      return;
    }
    const md5 = createHash('md5');
    res.write(head);
    try {
      while (!next.done) {
        if (next.value !== '') {
          md5.update(next.value);
          if (!res.write(next.value)) await drained(res);
        }
        await nextTurn();
        if (res.destroyed) return;
        next = pieces.next();
      }
    } catch (err) {
      failed(err);
      res.destroy();
      return;
    }
    res.end(tail(md5.digest('hex')));
  } finally {
    pieces.return?.();
  }
}

/**
 * Answers a GET's data as CSV (api_resource:to_csv/2): a listing's rows, or a document as one row;
 * streamed when the listing is, read twice then (see csvPieces). Nothing to write is a 204, as
 * Kazoo's empty CSV. Data that is not rows of objects (a job's detail, a text) is answered as JSON.
 */
async function sendCsv(res: ServerResponse, headers: Record<string, string>, reply: Reply, headOnly: boolean, failed: (err: unknown) => void): Promise<number | null> {
  const csvHeaders = { ...headers, 'Content-Type': 'text/csv', 'Content-Disposition': `attachment; filename="${CSV_FILE_NAME}"` };
  const status = reply.status ?? 200;
  if (reply.stream?.rows) {
    await sendStream(res, status, csvHeaders, csvPieces(reply.stream.rows), headOnly, '', () => '', failed, true);
    return null;
  }
  const text = csvText(Array.isArray(reply.data) ? reply.data : [reply.data]);
  if (text === '') return send(res, 204, undefined, headers);
  return send(res, status, Buffer.from(text), csvHeaders);
}

/** True when a reply's data are rows a CSV answer can write: a listing's, or a document (a job's detail, a text are not). */
function hasRows(reply: Reply): boolean {
  if (reply.stream) return reply.stream.rows !== undefined;
  return !reply.file && reply.data !== null && typeof reply.data === 'object';
}

/**
 * What node:http refuses before there is a request to hand over (a malformed request line or
 * header, an unknown method, headers over the size limit, a request too slow to arrive): the
 * envelope still, written on the socket, which is then closed as the parser cannot go on.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // the parser reports every later chunk of a connection it gave up on: answered once, drained
  if (answeredSockets.has(socket)) return;
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const apiErr =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? errors.headersTooLarge()
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.requestTimeout()
        : errors.badRequest(err.code === 'HPE_INVALID_METHOD' ? 'the request method is not one HTTP knows' : 'the request is not valid HTTP');
  const requestId = nextRequestId();
  const body = JSON.stringify(errorEnvelope(apiErr, requestId, undefined, false));
  const headers: Record<string, string | number> = {
    ...UNROUTED_CORS,
    'X-Request-ID': requestId,
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  answeredSockets.add(socket);
  socket.end(`HTTP/1.1 ${apiErr.status} ${STATUS_CODES[apiErr.status]}\r\n${head}\r\n${body}`);
  // Read and drop what the client is still sending until it closes: closing on unread bytes
  // would reset the connection and could lose the answer. Bounded, and a socket handed over by
  // CONNECT (paused) is read the same way.
  socket.on('data', () => {});
  socket.on('end', () => socket.destroy());
  socket.resume();
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/** Creates the HTTP server over a core and a router (not yet listening). */
export function createApiServer(core: Core, router: Router, given: ServerPolicy = {}): Server {
  // one shape for every server's policy (each request reads it): the type has every field listed
  const policy: ServerPolicy = {
    guard: given.guard,
    origins: given.origins,
    openMetrics: given.openMetrics,
    accessLog: given.accessLog,
    counted: given.counted ?? true,
  } satisfies Record<keyof ServerPolicy, unknown>;
  // before the first request, while V8 still knows nextTick's entries exactly (see tick-shape.ts)
  keepTickShape();
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    if (policy.counted) noteRequest();
    const url = req.url ?? '';
    if ((url === '/metrics' || url.startsWith('/metrics?')) && (!policy.guard || policy.guard(req.headers.host))) {
      answerMetrics(core, req, res, policy);
      return;
    }
    handleRequest(core, router, req, res, policy).catch((err) => {
      // handleRequest answers its own errors; this is the net under it
      const requestId = nextRequestId();
      sendError(res, internal(core, err, requestId), requestId);
    });
  };
  // A request without `Host` is answered like any other (node would send a bare 400).
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requireHostHeader: false },
    serve,
  );
  // A client that sends its request and then closes its side of the connection (`Connection:
  // close` and a half-close, as scripts and `nc -N` do) still gets its answer, after which the
  // connection ends. Node's default ends the socket as soon as it reads that close, so an answer
  // that waits for something (a commit, a password hash) was lost whenever the close was read
  // before the answer was written. Not in node's typings; http.test.ts pins it.
  (server as typeof server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', answerClientError);
  // An `Expect:` other than 100-continue is ignored, as Kazoo does (node would answer a bare 417).
  server.on('checkExpectation', serve);
  // CONNECT asks for a tunnel, which tel does not make; without this node drops the connection silently.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    answerClientError(Object.assign(new Error('CONNECT'), { code: 'HPE_INVALID_METHOD' }), socket);
  });
  return server;
}
