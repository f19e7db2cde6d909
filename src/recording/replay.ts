import type { Dispatcher } from 'undici';
import { allowedBy, type AllowRule } from './allow.js';
import { recordedAnswer } from './capture.js';
import { compareAnswers, type Difference } from './compare.js';
import { HOP_BY_HOP, type RecordedExchange, type RecordedRequest, type RecordedResponse } from './format.js';
import { LoginSecrets, type LabSecrets, type LoginContext } from './logins.js';
import { Generated } from './mapping.js';
import { openRecording } from './read.js';

/** How an exchange came out: answered alike, alike but for allowed differences, differently, not at all, or not compared. */
export type Verdict = 'identical' | 'allowed' | 'differing' | 'failing' | 'skipped';

/** One exchange replayed and compared. */
export interface ExchangeResult {
  seq: number;
  method: string;
  /** the recorded path and query */
  path: string;
  verdict: Verdict;
  status: { recorded?: number; replayed?: number };
  differences: (Difference & { allowed_by?: string })[];
  /** differences past those listed */
  more: number;
  reason?: string;
  /** the answers (not for identical exchanges), for a side-by-side view */
  recorded?: RecordedResponse;
  replayed?: RecordedResponse;
}

export interface DiffSummary {
  exchanges: number;
  identical: number;
  allowed: number;
  differing: number;
  failing: number;
  skipped: number;
  seconds: number;
}

export interface ReplayOptions {
  file: string;
  against: URL;
  allow: readonly AllowRule[];
  lab?: LabSecrets;
  /** hears each exchange's result, in order */
  each(result: ExchangeResult): void | Promise<void>;
}

/** How long a replayed request may wait for its answer's headers, and between its body's parts. */
const ANSWER_TIMEOUT_MS = 60_000;
/** Request headers a replay does not send as recorded: the connection's, the length (of another body) and compression. */
const NOT_REPLAYED = new Set([...HOP_BY_HOP, 'host', 'content-length', 'accept-encoding']);
/** Placeholders a replay must have a counterpart for: login secrets (logins.ts) and tokens. */
const NEEDED_PLACEHOLDER = /redacted:(?:credentials|api_key|token):[0-9a-f]{12,16}/g;

/** Every string of a JSON value, keys included. */
function* strings(v: unknown): Generator<string> {
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* strings(x);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      yield k;
      yield* strings(x);
    }
  }
}

/** A JSON value with each string (keys included) through `f`. */
function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), mapStrings(x, f)]));
  return v;
}

/** A query string with each value through `f` (a value it leaves alone keeps its encoding). */
function mapQuery(query: string, f: (s: string) => string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return f(pair);
      let value: string;
      try {
        value = decodeURIComponent(pair.slice(eq + 1).replaceAll('+', ' '));
      } catch {
        return pair;
      }
      const changed = f(value);
      return changed === value ? pair : `${pair.slice(0, eq)}=${encodeURIComponent(changed)}`;
    })
    .join('&');
}

/** The login a request's body names (user_auth's account and hash method). */
function loginContext(body: unknown): LoginContext {
  const data = body !== null && typeof body === 'object' ? (body as { data?: Record<string, unknown> }).data : undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { accountName: text(data?.account_name), realm: text(data?.account_realm) ?? text(data?.realm), method: text(data?.method) };
}

/**
 * Finds the login secrets a request needs that the replay does not know yet (logins.ts); answers
 * why the request will fail when a placeholder it needs has no counterpart (it goes as it is).
 */
async function missingSecrets(req: RecordedRequest, { gen, logins, given }: Replay): Promise<string | undefined> {
  const texts = [req.path, req.query, ...Object.values(req.headers).flat(), req.body_text ?? '', ...strings(req.body)];
  const unknown = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(NEEDED_PLACEHOLDER)) if (gen.get(m[0]) === undefined) unknown.add(m[0]);
  const secrets: string[] = [];
  const tokens: string[] = [];
  for (const p of unknown) {
    const line = gen.secret(p);
    if (line?.kind === 'token') tokens.push(p);
    else if (!line || !(await logins.resolve(line, loginContext(req.body)))) secrets.push(p);
  }
  if (secrets.length > 0) return `it sends a login secret the replay could not find (${secrets.join(', ')}): give --lab the lab file whose passwords and API keys the recorded client used`;
  const lost = tokens.filter((t) => given.has(t));
  if (lost.length > 0) return `it sends the token of a login that failed in this replay (${lost.join(', ')})`;
  if (tokens.length > 0) return `it sends a token no recorded answer gave (${tokens.join(', ')}): was it got before the recording began?`;
  return undefined;
}

/** The request as the replay sends it: generated values and placeholders replaced by their counterparts. */
function replayedRequest(req: RecordedRequest, gen: Generated, prefix: string): Dispatcher.RequestOptions {
  const sub = (s: string) => gen.substitute(s);
  const query = mapQuery(req.query, sub);
  const headers: string[] = [];
  for (const [name, v] of Object.entries(req.headers)) {
    if (NOT_REPLAYED.has(name)) continue;
    for (const value of Array.isArray(v) ? v : [v]) headers.push(name, sub(value));
  }
  let body: string | Buffer | undefined;
  if (req.body !== undefined) body = JSON.stringify(mapStrings(req.body, sub));
  else if (req.body_text !== undefined) body = sub(req.body_text);
  else if (req.body_base64 !== undefined) body = Buffer.from(req.body_base64, 'base64');
  return {
    path: `${prefix}${sub(req.path)}${query ? `?${query}` : ''}`,
    method: req.method as Dispatcher.HttpMethod,
    headers,
    body,
    headersTimeout: ANSWER_TIMEOUT_MS,
    bodyTimeout: ANSWER_TIMEOUT_MS,
  };
}

/** What a replay holds from one exchange to the next. */
interface Replay {
  pool: Dispatcher;
  /** the path of the server's base URL, put before each path */
  prefix: string;
  gen: Generated;
  logins: LoginSecrets;
  allow: readonly AllowRule[];
  /** the tokens recorded answers gave */
  given: Set<string>;
}

/** Replays one exchange and compares its answer. */
async function replayOne(ex: RecordedExchange, replay: Replay): Promise<ExchangeResult> {
  const { pool, prefix, gen, allow, given } = replay;
  const req = ex.request;
  const path = `${req.path}${req.query ? `?${req.query}` : ''}`;
  const result: ExchangeResult = { seq: ex.seq, method: req.method, path, verdict: 'skipped', status: {}, differences: [], more: 0 };
  if (!ex.response) return { ...result, reason: `no answer was recorded (${ex.aborted ?? 'none came'})` };
  result.status.recorded = ex.response.status;
  if (req.body_omitted !== undefined) return { ...result, reason: `the request's body is not in the recording (${req.body_omitted})` };
  const missing = await missingSecrets(req, replay);
  for (const t of strings(ex.response.body)) for (const m of t.matchAll(NEEDED_PLACEHOLDER)) if (gen.secret(m[0])?.kind === 'token') given.add(m[0]);
  let replayed: RecordedResponse;
  try {
    const res = await pool.request(replayedRequest(req, gen, prefix));
    replayed = recordedAnswer(res.statusCode, res.headers, new Uint8Array(await res.body.arrayBuffer()));
  } catch (err) {
    return { ...result, verdict: 'failing', reason: `the request failed: ${(err as Error).message}` };
  }
  result.status.replayed = replayed.status;
  const { differences, more } = compareAnswers(ex.response, replayed, gen);
  result.more = more;
  result.differences = differences.map((d) => {
    const rule = allowedBy(allow, req.method, req.path, d.field);
    return rule ? { ...d, allowed_by: `line ${rule.line}: ${rule.text}` } : d;
  });
  if (differences.length === 0) return { ...result, verdict: 'identical' };
  Object.assign(result, { recorded: ex.response, replayed });
  if (missing) return { ...result, verdict: 'failing', reason: missing };
  const allowed = more === 0 && result.differences.every((d) => d.allowed_by);
  return { ...result, verdict: allowed ? 'allowed' : 'differing' };
}

/**
 * `tel diff`: replays a recording's exchanges one at a time, in the order their requests started,
 * against another server, each request with what the first server generated replaced by what this
 * one did (mapping.ts) and its logins' secrets found again (logins.ts), and compares each answer
 * with the recorded one (compare.ts). Reads the file as it goes: a replay's memory is that of the
 * values learned, not of the recording.
 */
export async function replayRecording(opts: ReplayOptions): Promise<DiffSummary> {
  const started = performance.now();
  const { header, items } = await openRecording(opts.file);
  const { Pool } = await import('undici');
  const pool = new Pool(opts.against.origin, { connections: 1 });
  const prefix = opts.against.pathname.replace(/\/+$/, '');
  const gen = new Generated();
  const replay: Replay = { pool, prefix, gen, logins: new LoginSecrets(Buffer.from(header.salt, 'base64'), opts.lab, gen), allow: opts.allow, given: new Set() };
  const summary: DiffSummary = { exchanges: 0, identical: 0, allowed: 0, differing: 0, failing: 0, skipped: 0, seconds: 0 };
  try {
    for await (const item of items) {
      if ('secret' in item) {
        gen.addSecret(item.secret);
        continue;
      }
      const host = item.exchange.request.headers.host;
      if (typeof host === 'string') gen.addHost(host, opts.against.host);
      const result = await replayOne(item.exchange, replay);
      summary.exchanges++;
      summary[result.verdict]++;
      await opts.each(result);
    }
  } finally {
    await pool.close();
  }
  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  return summary;
}
