import type { Dispatcher } from 'undici';
import { PairMemo } from '../util/memo.js';
import { VERSION } from '../version.js';
import { appendQuery, formEncode } from './encode.js';
import type { DeliveryRow } from './outbox.js';
import { signatureHeaders } from './sign.js';
import { reachedNonPublic } from './private-networks.js';

/** Bodies kept in attempt records are cut at this many characters. */
export const STORED_BODY_CHARS = 16 * 1024;

/**
 * A receiver's answer is read this far at most: past it the try ends with what was read (the
 * status decides) and the connection is dropped, so a huge or endless answer costs neither
 * memory nor a socket held until the timeout.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** A header name or value, or a URL, that could split the request it goes into. */
const UNSAFE = /[\r\n\0]/;

/** A delivery whose configuration cannot make a safe request: reported as the try's failure. */
class UnsafeRequest extends Error {
  // Stryker disable next-line StringLiteral: the class is told by instanceof; its code is for a reader of a stack trace only
  readonly code = 'TEL_UNSAFE_REQUEST';
}

/** What one HTTP try of a delivery gave. */
export interface TryOutcome {
  ok: boolean;
  /** the URL called (with the query string of a get) */
  url: string;
  status?: number;
  /** failure class: `bad response code`, `connection error`, `response timeout` */
  reason?: string;
  /** the transport error (`econnrefused`, `nxdomain`, `timeout after 10000 ms`, …) */
  clientError?: string;
  latencyMs: number;
  reqHeaders: Record<string, string>;
  reqBody: string;
  respHeaders?: Record<string, string | string[] | undefined>;
  respBody?: string;
  /** the raw `Retry-After` of a 429 or 503 */
  retryAfter?: string;
  /** whether what answered is on a public address (not this machine's, nor a private network's): see reachedNonPublic */
  publicPeer?: boolean;
}

const USER_AGENT = `tel-webhooks/${VERSION}`;

/**
 * What a delivery's URL and configured headers (its row's JSON text) make of its requests — the
 * same for every row of a hook: the URL without fragment or credentials, the headers lower-cased
 * (with the credentials' Basic authorization unless one is configured), each checked once; or why
 * no safe request can be made of them.
 */
interface RequestBase {
  url: string;
  headers: Readonly<Record<string, string>>;
  unsafe?: string;
}

/** By headers text, then URL (strings a hook's rows share). */
const requestBases = new PairMemo<RequestBase>(1000);

/** A row's request base, worked out once per distinct URL and headers (a hook's rows share them). */
function requestBase(rowUrl: string, headersText: string): RequestBase {
  return requestBases.get(headersText, rowUrl, makeRequestBase);
}

function makeRequestBase(headersText: string, rowUrl: string): RequestBase {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(JSON.parse(headersText) as Record<string, string>)) headers[k.toLowerCase()] = v;
  // a fragment names a place in the receiver's document: it is not part of the request
  const hash = rowUrl.indexOf('#');
  // Stryker disable next-line EqualityOperator: an absolute URL starts with its scheme, so its fragment is never at 0
  let url = hash >= 0 ? rowUrl.slice(0, hash) : rowUrl;
  // user:password@ in the uri is sent as Basic authorization (as Kazoo's HTTP client does)
  // Stryker disable next-line ConditionalExpression,StringLiteral: a URL without `@` has no credentials for basicCredentials to find; the test only spares it the parse
  if (url.includes('@')) {
    const credentials = basicCredentials(url);
    if (credentials) {
      url = credentials.url;
      headers.authorization ??= credentials.authorization;
    }
  }
  // Headers and URLs come from hook and queue configuration: none may carry CR, LF or NUL into the request.
  // Stryker disable next-line Regex,StringLiteral: an unsafe base is never sent; its try records the row's own URL, cleaned by sendTry
  if (UNSAFE.test(url)) return { url: rowUrl.replace(/[\r\n\0]/g, ''), headers, unsafe: 'the URL holds a line break or NUL' };
  for (const [k, v] of Object.entries(headers)) {
    if (UNSAFE.test(k) || UNSAFE.test(v)) return { url, headers, unsafe: `header ${JSON.stringify(k)} holds a line break or NUL` };
  }
  return { url, headers: Object.freeze(headers) };
}

/** The request of one try: URL, headers and body, signed when the delivery has a secret. */
export function buildRequest(row: DeliveryRow, nowMs: number = Date.now()): { url: string; headers: Record<string, string>; body: string } {
  const base = requestBase(row.url, row.headers);
  if (base.unsafe !== undefined) throw new UnsafeRequest(base.unsafe);
  // the event id goes into a header (and a signed one into the signature's)
  if (UNSAFE.test(row.event_id)) throw new UnsafeRequest('the event id holds a line break or NUL');
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'x-event-id': row.event_id };
  for (const k in base.headers) headers[k] = base.headers[k];
  let url = base.url;
  let body = '';
  if (row.method === 'get') {
    url = appendQuery(url, formEncode(JSON.parse(row.payload)));
  } else if (row.format === 'form-data') {
    body = formEncode(JSON.parse(row.payload));
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else {
    // the stored payload is already the compact JSON text
    body = row.payload;
    headers['content-type'] = 'application/json';
  }
  if (row.secret) Object.assign(headers, signatureHeaders(signingSecrets(row.secret, row, nowMs), row.event_id, body, nowMs));
  return { url, headers, body };
}

/** The secrets a try of a signed row is signed with: its own, and a rotated-out one while its grace lasts. */
function signingSecrets(secret: string, row: DeliveryRow, nowMs: number): string[] {
  const previous = row.previous_secret;
  return previous && (row.previous_secret_until ?? 0) > nowMs ? [secret, previous] : [secret];
}

/** The Basic authorization of a URL's `user:password@`, and the URL without them; undefined when it has none. */
function basicCredentials(url: string): { url: string; authorization: string } | undefined {
  const u = new URL(url);
  if (u.username === '' && u.password === '') return undefined;
  const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = '';
  u.password = '';
  return { url: u.href, authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** The request headers as attempt records keep them: credentials masked. */
function recordedHeaders(headers: Record<string, string>): Record<string, string> {
  return headers.authorization === undefined ? headers : { ...headers, authorization: '(hidden)' };
}

/** The origin a target starts with (`http://host:port`, see targetOf). */
// Stryker disable next-line BlockStatement: splitUrl parses a URL whose origin it was not given, which answers the same
function originOfTarget(target: string): string {
  // Stryker disable next-line StringLiteral: a wrong origin only makes splitUrl parse the URL, which answers the same
  const slash = target.indexOf('/', target.indexOf('//') + 2);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: a wrong origin only makes splitUrl parse the URL, which answers the same
  return slash < 0 ? target : target.slice(0, slash);
}

/** Origin and path of a URL; the common case (the target's origin is its prefix) without parsing it. */
function splitUrl(url: string, knownOrigin: string): { origin: string; path: string } {
  // Stryker disable next-line ConditionalExpression,MethodExpression: the URL parsed answers the same origin and path; the shortcut spares the parse
  if (url.startsWith(`${knownOrigin}/`)) return { origin: knownOrigin, path: url.slice(knownOrigin.length) };
  const u = new URL(url);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

/** The host of an origin (`http://host:port`), as its URL names it. */
function hostOfOrigin(origin: string): string {
  const rest = origin.slice(origin.indexOf('//') + 2);
  const port = rest.lastIndexOf(':');
  return port > rest.lastIndexOf(']') ? rest.slice(0, port) : rest;
}

/** A response as one try reads it: status, headers and the start of the body. */
interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

class ResponseTimeout extends Error {
  // Stryker disable next-line StringLiteral: the class is told by instanceof; its code is for a reader of a stack trace only
  readonly code = 'TEL_RESPONSE_TIMEOUT';
}

/**
 * One request through undici's dispatch interface with a deadline of our own: the whole
 * exchange, connecting included, must end within `timeoutMs`. (An AbortSignal per request
 * costs a fifth of the sender's time; undici's own timers may fire up to a second late.)
 */
function exchange(agent: Dispatcher, opts: Dispatcher.DispatchOptions, timeoutMs: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let done = false;
    let status = 0;
    let headers: Response['headers'] = {};
    const chunks: Buffer[] = [];
    let kept = 0;
    const end = (err: Error | null, value?: Response) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const timer = setTimeout(() => {
      // Stryker disable next-line StringLiteral: a timeout is recorded as `timeout after N ms`, not by this message
      const err = new ResponseTimeout(`no response within ${timeoutMs} ms`);
      // Stryker disable next-line OptionalChaining: undici hands the controller over as it dispatches, before any timer can fire
      controller?.abort(err);
      // Stryker disable next-line CallExpression: aborting ends the exchange through onResponseError with the same error
      end(err);
    }, timeoutMs);
    agent.dispatch(opts, {
      onRequestStart(c) {
        controller = c;
        // Stryker disable next-line ConditionalExpression: undici hands the controller over as it dispatches, before the timer can have fired
        if (done) c.abort(new ResponseTimeout('timed out before sending'));
      },
      onResponseStart(_c, statusCode, h) {
        status = statusCode;
        headers = h;
      },
      onResponseData(c, chunk) {
        // a usual answer is drained (the connection goes back to the pool); only its start is kept
        // Stryker disable next-line EqualityOperator: a chunk more or less read at the limit: the body kept is cut at 16 KiB either way
        if (kept < MAX_RESPONSE_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
          return;
        }
        // an answer larger than that ends the try with what was read; the connection is dropped
        // (answered first: aborting reports an error synchronously, which must not win)
        end(null, { status, headers, body: clip(Buffer.concat(chunks).toString('utf8')) });
        // Stryker disable next-line StringLiteral: the try has ended with what was read; the abort's reason reaches no record
        c.abort(new ResponseTimeout('answer too large'));
      },
      onResponseEnd() {
        end(null, { status, headers, body: clip(Buffer.concat(chunks).toString('utf8')) });
      },
      onResponseError(_c, err) {
        end(err);
      },
    });
  });
}

/** Sends one try through `agent`; never throws (a transport error is an outcome). */
export async function sendTry(agent: Dispatcher, row: DeliveryRow, timeoutMs: number): Promise<TryOutcome> {
  let req: ReturnType<typeof buildRequest>;
  try {
    req = buildRequest(row);
  } catch (err) {
    if (!(err instanceof UnsafeRequest)) throw err;
    return outcomeOf(row.url.replace(/[\r\n\0]/g, ''), {}, '', false, undefined, 'invalid request', err.message, 0);
  }
  const { origin, path } = splitUrl(req.url, originOfTarget(row.target));
  const started = performance.now();
  const reqHeaders = recordedHeaders(req.headers);
  const reqBody = clip(req.body);
  try {
    const res = await exchange(
      agent,
      {
        origin,
        path,
        method: row.method.toUpperCase() as Dispatcher.HttpMethod,
        headers: req.headers,
        // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,StringLiteral: undici sends a get's empty body as none, and a post's as none of length 0, either way
        body: req.body === '' && row.method === 'get' ? undefined : req.body,
        // exchange()'s own timer ends a try that outlives timeoutMs, whatever stage it is in, and
        // aborting it lets undici's socket go: undici's timers would only duplicate it, and keep a
        // timer of their own per request (refreshed on each chunk, started anew after a pause)
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      timeoutMs,
    );
    const ok = res.status >= 200 && res.status < 300;
    const outcome = outcomeOf(req.url, reqHeaders, reqBody, ok, res.status, ok ? undefined : 'bad response code', undefined, started);
    outcome.respHeaders = res.headers;
    outcome.respBody = res.body;
    outcome.publicPeer = !reachedNonPublic(hostOfOrigin(origin));
    if (res.status === 429 || res.status === 503) outcome.retryAfter = headerText(res.headers['retry-after']);
    return outcome;
  } catch (err) {
    const timedOut = err instanceof ResponseTimeout;
    const clientError = timedOut ? `timeout after ${timeoutMs} ms` : clientErrorOf(err);
    return outcomeOf(req.url, reqHeaders, reqBody, false, undefined, timedOut ? 'response timeout' : 'connection error', clientError, started);
  }
}

/** A try's outcome, every field in place (one shape for all of them); `started` 0: no request was made. */
function outcomeOf(
  url: string,
  reqHeaders: Record<string, string>,
  reqBody: string,
  ok: boolean,
  status: number | undefined,
  reason: string | undefined,
  clientError: string | undefined,
  started: number,
): TryOutcome {
  return {
    ok,
    url,
    status,
    reason,
    clientError,
    latencyMs: started === 0 ? 0 : Math.round(performance.now() - started),
    reqHeaders,
    reqBody,
    respHeaders: undefined,
    respBody: undefined,
    retryAfter: undefined,
    publicPeer: undefined,
  };
}

function clip(text: string): string {
  return text.length > STORED_BODY_CHARS ? text.slice(0, STORED_BODY_CHARS) : text;
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A short, stable name for a transport error, as Kazoo records `client_error`. */
export function clientErrorOf(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = e?.cause?.code ?? e?.code;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'nxdomain';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_SOCKET':
      return 'socket closed';
    case 'TEL_NON_PUBLIC_ADDRESS':
      return e.cause?.message ?? e.message ?? code;
    case undefined:
      return e?.cause?.message ?? e?.message ?? String(err);
    default:
      return code.toLowerCase();
  }
}
