import { hash } from 'node:crypto';
import { isoSeconds } from '../util/time.js';
import { VERSION } from '../version.js';
import type { ApiError } from '../errors.js';

import { NODE_NAME } from '../util/node-name.js';

/** The node name the envelope reports. */
export { NODE_NAME };

/** Extra envelope keys a handler may add (listings). */
export interface EnvelopeExtras {
  page_size?: number;
  start_key?: unknown;
  next_start_key?: unknown;
  /**
   * The answer's revision; when absent, the md5 of its data. Null leaves the key out, as Kazoo's
   * envelope does for an answer without an etag (a write that saved no document:
   * api_util:create_default_resp_envelope/1 sets `revision` from the context's etag, undefined then).
   */
  revision?: string | null;
  [key: string]: unknown;
}

/** The extras of an answer that has no revision (see EnvelopeExtras.revision). */
export const WITHOUT_REVISION: EnvelopeExtras = Object.freeze({ revision: null });

/** The JSON of an envelope's `revision`, or undefined when it has none. */
function revisionText(revision: string | null | undefined, dataMd5: () => string): string | undefined {
  if (revision === null) return undefined;
  return JSON.stringify(revision ?? dataMd5());
}

/**
 * The success envelope around `data` (given as its JSON text, see `dataJson`), as JSON text: the
 * same text goes into the body and, when the handler gives no revision, into the revision's hash.
 * The text is what `JSON.stringify` of the envelope object would give, key for key.
 */
export function successEnvelope(
  dataJson: string | undefined,
  requestId: string,
  authToken: string | undefined,
  extras: EnvelopeExtras = {},
  authenticated = true,
): string {
  // A document's answer (extras hold at most its revision): its keys in their fixed order, written directly.
  if (!hasOtherExtras(extras) && PLAIN_REQUEST_ID.test(requestId)) return successAnswer(dataJson, requestId, authToken, extras, authenticated).text;
  const { revision, ...rest } = extras;
  // values already in JSON; the keys are assigned as the envelope object's would be (same order)
  const env: Record<string, string | undefined> = {};
  if (authToken) env.auth_token = JSON.stringify(authToken);
  if (dataJson !== undefined) env.data = dataJson;
  return objectText(closingKeys(env, rest, revisionText(revision, () => md5Hex(dataJson ?? 'null')), requestId, authenticated));
}

/** A success envelope's text and that text's length in bytes (UTF-8). */
export interface SuccessAnswer {
  text: string;
  bytes: number;
}

/**
 * What a document's envelope keeps from one request to the next: everything but the request id
 * and the timestamp, in three pieces around them, and the bytes of the three.
 */
interface DocumentPieces {
  dataJson: string | undefined;
  authToken: string | undefined;
  revision: unknown;
  authenticated: boolean;
  head: string;
  middle: string;
  tail: string;
  bytes: number;
}

/** The pieces of the document answered last. */
let lastPieces: DocumentPieces | undefined;

/**
 * `successEnvelope` with the text's length in bytes, for a request id of word characters and
 * dashes only (the server makes them so, or accepts only such from clients). A document's
 * envelope (extras hold at most its revision) is joined from the pieces kept for the token, data
 * and revision answered last (a client reading a document again and again): five strings joined,
 * and the length known without reading the text again. Built and then counted whole, it was 3% of
 * an authenticated GET's on-CPU time (perf: the joins, the revision's JSON, a scan of the text for
 * its length, which also flattened it once more than writing it does). Other answers are built
 * whole and counted.
 */
export function successAnswer(
  dataJson: string | undefined,
  requestId: string,
  authToken: string | undefined,
  extras: EnvelopeExtras = {},
  authenticated = true,
): SuccessAnswer {
  if (hasOtherExtras(extras)) {
    const text = successEnvelope(dataJson, requestId, authToken, extras, authenticated);
    return { text, bytes: Buffer.byteLength(text) };
  }
  let p = lastPieces;
  if (p === undefined || p.dataJson !== dataJson || p.authToken !== authToken || p.revision !== extras.revision || p.authenticated !== authenticated) {
    lastPieces = p = documentPieces(dataJson, authToken, extras.revision, authenticated);
  }
  const timestamp = timestampJson();
  return { text: p.head + requestId + p.middle + timestamp + p.tail, bytes: p.bytes + requestId.length + timestamp.length };
}

function documentPieces(dataJson: string | undefined, authToken: string | undefined, revision: string | null | undefined, authenticated: boolean): DocumentPieces {
  let head = authToken ? `{"auth_token":${tokenJson(authToken)},` : '{';
  if (dataJson !== undefined) head += `"data":${dataJson},`;
  head += `"node":${NODE_JSON},"request_id":"`;
  const revisionJson = revisionText(revision, () => md5Hex(dataJson ?? 'null'));
  const middle = `"${revisionJson === undefined ? '' : `,"revision":${revisionJson}`},"status":"success","timestamp":`;
  const tail = authenticated ? `,"version":${VERSION_JSON}}` : '}';
  const bytes = Buffer.byteLength(head) + Buffer.byteLength(middle) + Buffer.byteLength(tail);
  return { dataJson, authToken, revision, authenticated, head, middle, tail, bytes };
}

/**
 * The start of a success envelope whose `data` is written in pieces (a streamed listing): the
 * envelope is `envelopeHead(…)`, the data's JSON text, then `envelopeTail(…)`, the same text
 * `successEnvelope` gives for the whole data.
 */
export function envelopeHead(authToken: string | undefined): string {
  return authToken ? `{"auth_token":${tokenJson(authToken)},"data":` : '{"data":';
}

/**
 * The end of a streamed success envelope: the extras (known once the data is written, such as
 * `page_size`), and the keys every envelope ends with; `dataMd5` is the md5 (hex) of the data's
 * text, the revision of an answer without one of its own.
 */
export function envelopeTail(dataMd5: string, requestId: string, extras: EnvelopeExtras, authenticated = true): string {
  const { revision, ...rest } = extras;
  return `,${objectText(closingKeys({}, rest, revisionText(revision, () => dataMd5), requestId, authenticated)).slice(1)}`;
}

/** Adds the extras and the keys that close every envelope (node … version) to `env`, values as JSON. */
function closingKeys(
  env: Record<string, string | undefined>,
  extras: EnvelopeExtras,
  revisionJson: string | undefined,
  requestId: string,
  authenticated: boolean,
): Record<string, string | undefined> {
  for (const key of Object.keys(extras)) env[key] = JSON.stringify(extras[key]);
  env.node = NODE_JSON;
  env.request_id = JSON.stringify(requestId);
  env.revision = revisionJson;
  env.status = '"success"';
  env.timestamp = timestampJson();
  // Kazoo tells its version only to a caller whose token it checked.
  if (authenticated) env.version = VERSION_JSON;
  return env;
}

/** The text of an object whose values are JSON already (undefined ones left out). */
function objectText(env: Record<string, string | undefined>): string {
  let text = '{';
  for (const key in env) {
    const value = env[key];
    if (value === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${value}`;
  }
  return `${text}}`;
}

/** Builds the error envelope for an ApiError. */
export function errorEnvelope(
  err: ApiError,
  requestId: string,
  authToken: string | undefined,
  authenticated = true,
): Record<string, unknown> {
  const env: Record<string, unknown> = {};
  if (authToken) env.auth_token = authToken;
  env.data = err.data ?? {};
  env.error = String(err.status);
  env.message = err.kazooMessage;
  env.node = NODE_NAME;
  env.request_id = requestId;
  env.status = 'error';
  env.timestamp = isoSeconds();
  if (authenticated) env.version = VERSION;
  return env;
}

/** JSON texts of frozen data (documents cached with their rows): serialised once, answered many times. */
const frozenJson = new WeakMap<object, string>();

/** The JSON text of a reply's `data`; a frozen object's is kept for the next time it is answered. */
export function dataJson(data: unknown): string | undefined {
  if (data === undefined) return undefined;
  if (data === null || typeof data !== 'object') return JSON.stringify(data);
  // looked up first: what was frozen stays so, and asking V8 whether an object is frozen is a call into its runtime
  let text = frozenJson.get(data);
  if (text !== undefined) return text;
  text = JSON.stringify(data);
  if (Object.isFrozen(data)) frozenJson.set(data, text);
  return text;
}

const NODE_JSON = JSON.stringify(NODE_NAME);

/** True when the extras hold anything besides `revision` (listings: page_size, keys…). */
function hasOtherExtras(extras: EnvelopeExtras): boolean {
  for (const key in extras) if (key !== 'revision') return true;
  return false;
}

let timestampText = '';
let timestampJsonText = '';

/** The envelope's `timestamp` as JSON (the same for a whole second). */
function timestampJson(): string {
  const iso = isoSeconds();
  if (iso !== timestampText) {
    timestampText = iso;
    timestampJsonText = JSON.stringify(iso);
  }
  return timestampJsonText;
}
const VERSION_JSON = JSON.stringify(VERSION);

/** A request id that is its own JSON text once quoted (the server's ids are all such). */
const PLAIN_REQUEST_ID = /^[\w-]*$/;

const tokenJsons = new Map<string, string>();
/** The token answered last and its JSON: compared rather than hashed again, as RowCache does with keys. */
let lastToken: string | undefined;
let lastTokenJson = '';

/** A token's JSON text: a client sends the same token request after request, so it is serialised once. */
function tokenJson(token: string): string {
  if (token === lastToken) return lastTokenJson;
  let json = tokenJsons.get(token);
  if (json === undefined) {
    json = JSON.stringify(token);
    if (token.length > 4096) return json;
    if (tokenJsons.size >= 1000) tokenJsons.clear();
    tokenJsons.set(token, json);
  }
  lastToken = token;
  lastTokenJson = json;
  return json;
}

function md5Hex(text: string): string {
  return hash('md5', text, 'hex');
}
