import type { Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { appendQuery, formEncode } from './encode.js';
import type { DeliveryRow } from './outbox.js';
import { signatureHeaders } from './sign.js';

/** Bodies kept in attempt records are cut at this many characters. */
export const STORED_BODY_CHARS = 16 * 1024;

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
}

/** The request of one try: URL, headers and body, signed when the delivery has a secret. */
export function buildRequest(row: DeliveryRow, nowMs: number = Date.now()): { url: string; headers: Record<string, string>; body: string } {
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
  const headers: Record<string, string> = {
    'user-agent': `tel-webhooks/${VERSION}`,
    'x-event-id': row.event_id,
  };
  for (const [k, v] of Object.entries(JSON.parse(row.headers) as Record<string, string>)) headers[k.toLowerCase()] = v;
  let url = row.url;
  let body = '';
  if (row.method === 'get') {
    url = appendQuery(row.url, formEncode(payload));
  } else if (row.format === 'form-data') {
    body = formEncode(payload);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else {
    body = JSON.stringify(payload);
    headers['content-type'] = 'application/json';
  }
  if (row.secret) Object.assign(headers, signatureHeaders(row.secret, row.event_id, body, nowMs));
  return { url, headers, body };
}

/** Sends one try through `agent`; never throws (a transport error is an outcome). */
export async function sendTry(agent: Dispatcher, row: DeliveryRow, timeoutMs: number): Promise<TryOutcome> {
  const req = buildRequest(row);
  const u = new URL(req.url);
  const started = performance.now();
  const base = { url: req.url, reqHeaders: req.headers, reqBody: clip(req.body) };
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await agent.request({
      origin: u.origin,
      path: `${u.pathname}${u.search}`,
      method: row.method.toUpperCase() as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body === '' && row.method === 'get' ? undefined : req.body,
      signal,
    });
    const respBody = await readClipped(res.body);
    const status = res.statusCode;
    const ok = status >= 200 && status < 300;
    const retryAfter = status === 429 || status === 503 ? headerText(res.headers['retry-after']) : undefined;
    return {
      ...base,
      ok,
      status,
      ...(ok ? {} : { reason: 'bad response code' }),
      latencyMs: Math.round(performance.now() - started),
      respHeaders: res.headers,
      respBody,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
  } catch (err) {
    const timedOut = signal.aborted;
    return {
      ...base,
      ok: false,
      reason: timedOut ? 'response timeout' : 'connection error',
      clientError: timedOut ? `timeout after ${timeoutMs} ms` : clientErrorOf(err),
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

async function readClipped(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  // Drain the whole body so the connection goes back to the pool; keep only the start.
  for await (const chunk of body) {
    if (text.length < STORED_BODY_CHARS) text += chunk.toString('utf8');
  }
  return clip(text);
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
    case undefined:
      return e?.cause?.message ?? e?.message ?? String(err);
    default:
      return code.toLowerCase();
  }
}
