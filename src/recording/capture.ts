import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { jsonTooDeep } from '../util/json.js';
import { MAX_RECORDED_BODY_BYTES, type RecordedExchange, type RecordedMessage, type RecordedResponse } from './format.js';

/** An exchange as the proxy saw it, before it is recorded: raw headers and body bytes. */
export interface RawExchange {
  seq: number;
  atMs: number;
  method: string;
  /** the request's target as sent (path and query) */
  url: string;
  /** the request's headers as name, value, name, value … */
  reqHeaders: string[];
  reqBody: Uint8Array[];
  reqBytes: number;
  status?: number;
  resHeaders?: Record<string, string | string[] | undefined>;
  resBody: Uint8Array[];
  resBytes: number;
  headersMs?: number;
  totalMs?: number;
  aborted?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body's bytes decoded from its content-encoding; undefined when they do not decode. */
function decoded(bytes: Buffer, encoding: string): Buffer | undefined {
  // a few KB of gzip can inflate to gigabytes: decoded, a body is held to what a recording keeps
  const bound = { maxOutputLength: MAX_RECORDED_BODY_BYTES };
  try {
    if (encoding === '' || encoding === 'identity') return bytes;
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(bytes, bound);
    if (encoding === 'deflate') return inflateSync(bytes, bound);
    if (encoding === 'br') return brotliDecompressSync(bytes, bound);
  } catch {
    /* not what it says it is, or larger decoded than a recording keeps: kept as bytes */
  }
  return undefined;
}

/** The body of a message as the recording holds it: JSON when it parses, else text, else base64. */
function withBody<M extends RecordedMessage>(message: M, chunks: Uint8Array[], bytes: number): M {
  message.body_bytes = bytes;
  if (bytes === 0) return message;
  if (bytes > MAX_RECORDED_BODY_BYTES) {
    message.body_omitted = `larger than ${MAX_RECORDED_BODY_BYTES / 1024 / 1024} MiB`;
    return message;
  }
  const raw = Buffer.concat(chunks);
  const encoding = String(message.headers['content-encoding'] ?? '').toLowerCase();
  const body = decoded(raw, encoding);
  if (!body) {
    message.body_base64 = raw.toString('base64');
    return message;
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    message.body_base64 = body.toString('base64');
    return message;
  }
  if (/^\s*[[{"]/.test(text) && !jsonTooDeep(body)) {
    try {
      message.body = JSON.parse(text);
      return message;
    } catch {
      /* not JSON: kept as text */
    }
  }
  message.body_text = text;
  return message;
}

/** Headers given as name, value, … pairs: lower-case names, a repeated one as a list. */
function headerObject(pairs: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) add(out, pairs[i].toLowerCase(), pairs[i + 1]);
  return out;
}

/** Headers as an object (undici's): lower-case names, those without a value left out. */
function headerValues(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, v] of Object.entries(headers)) if (v !== undefined) out[name.toLowerCase()] = v;
  return out;
}

function add(out: Record<string, string | string[]>, name: string, value: string): void {
  const had = out[name];
  out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
}

/** A raw exchange as a recorded one (secrets still in it: see redact.ts). */
export function recordedExchange(raw: RawExchange): RecordedExchange {
  const q = raw.url.indexOf('?');
  const ex: RecordedExchange = {
    seq: raw.seq,
    at_ms: round(raw.atMs),
    request: withBody(
      { method: raw.method, path: q < 0 ? raw.url : raw.url.slice(0, q), query: q < 0 ? '' : raw.url.slice(q + 1), headers: headerObject(raw.reqHeaders), body_bytes: 0 },
      raw.reqBody,
      raw.reqBytes,
    ),
  };
  if (raw.status !== undefined && raw.aborted === undefined) {
    ex.response = withBody({ status: raw.status, headers: headerValues(raw.resHeaders ?? {}), body_bytes: 0 }, raw.resBody, raw.resBytes);
    ex.ms = { headers: round(raw.headersMs ?? 0), total: round(raw.totalMs ?? 0) };
  }
  if (raw.aborted !== undefined) ex.aborted = raw.aborted;
  return ex;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** An answer as a recording holds it (the replayed one, to compare with the recorded one). */
export function recordedAnswer(status: number, headers: Record<string, string | string[] | undefined>, body: Uint8Array): RecordedResponse {
  return withBody({ status, headers: headerValues(headers), body_bytes: 0 }, [body], body.length);
}
