/**
 * How `tel sink` answers: a status, failures at a seeded rate, a delay, never, a Retry-After —
 * for every request or per path. Pure: no I/O, the only state the random sequence.
 */

/** How to answer (one command line's options, or one rule's actions). */
export interface Behaviour {
  status?: number;
  /** answer 500 this often (0..1), drawn from the seeded sequence */
  failRate?: number;
  delayMs?: number;
  /** never answer */
  hang?: boolean;
  /** `Retry-After` of a 429 or 503 answer (seconds); alone it means 503 */
  retryAfterS?: number;
}

/** A per-path rule: requests under `path` (whole segments) answer with its actions over the defaults. */
export interface Rule {
  path: string;
  behaviour: Behaviour;
  /** as given, to name it in records (`rule /crm`) */
  text: string;
}

/** What to answer one request: status (null: never), headers, after how long, and what chose it. */
export interface Answer {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
  by: string;
}

/** A usage error in a behaviour or rule, said in one sentence. */
export class PolicyError extends Error {}

/** Statuses the sink may answer. */
const MIN_STATUS = 200;
const MAX_STATUS = 599;
/** The longest an answer may be delayed (`--delay`, `delay:MS`): an hour. */
export const MAX_DELAY_MS = 3_600_000;

/** Checks a behaviour (statuses, rates, a Retry-After that needs a 429 or 503); throws a PolicyError. */
export function checkBehaviour(b: Behaviour, where: string): Behaviour {
  if (b.status !== undefined && !(Number.isInteger(b.status) && b.status >= MIN_STATUS && b.status <= MAX_STATUS)) {
    throw new PolicyError(`${where}: a status is ${MIN_STATUS}..${MAX_STATUS}, not ${b.status}.`);
  }
  if (b.failRate !== undefined && !(b.failRate >= 0 && b.failRate <= 1)) throw new PolicyError(`${where}: a fail rate is 0..1, not ${b.failRate}.`);
  if (b.delayMs !== undefined && !(Number.isInteger(b.delayMs) && b.delayMs >= 0 && b.delayMs <= MAX_DELAY_MS)) {
    throw new PolicyError(`${where}: a delay is whole milliseconds up to ${MAX_DELAY_MS} (an hour), not ${b.delayMs}.`);
  }
  if (b.retryAfterS !== undefined) {
    if (!(Number.isInteger(b.retryAfterS) && b.retryAfterS >= 0)) throw new PolicyError(`${where}: Retry-After is whole seconds, not ${b.retryAfterS}.`);
    if (b.status !== undefined && b.status !== 429 && b.status !== 503) throw new PolicyError(`${where}: Retry-After goes with a 429 or 503, not ${b.status}.`);
  }
  return b;
}

function number(text: string, what: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new PolicyError(`${what}: ${JSON.stringify(text)} is not a number.`);
  return n;
}

/**
 * Parses `--rule PATH=ACTION[,ACTION…]`: ACTION is a status (`503`), `delay:MS`, `hang`,
 * `fail:RATE` or `retry-after:S`. `/crm=503` answers 503 under /crm; `/slow=delay:2000` delays.
 */
export function parseRule(text: string): Rule {
  const eq = text.indexOf('=');
  const path = eq < 0 ? '' : text.slice(0, eq).trim();
  if (!path.startsWith('/') || eq === text.length - 1) throw new PolicyError(`--rule ${JSON.stringify(text)}: write PATH=ACTION, e.g. /crm=503 or /slow=delay:2000.`);
  const behaviour: Behaviour = {};
  for (const action of text.slice(eq + 1).split(',').map((a) => a.trim())) {
    const [name, value = ''] = action.split(':', 2);
    const what = `--rule ${text}`;
    if (/^\d+$/.test(action)) behaviour.status = Number(action);
    else if (name === 'delay') behaviour.delayMs = number(value, what);
    else if (name === 'hang' && value === '') behaviour.hang = true;
    else if (name === 'fail') behaviour.failRate = number(value, what);
    else if (name === 'retry-after') behaviour.retryAfterS = number(value, what);
    else throw new PolicyError(`${what}: unknown action ${JSON.stringify(action)} (a status, delay:MS, hang, fail:RATE or retry-after:S).`);
  }
  return { path: path.length > 1 ? path.replace(/\/+$/, '') : path, behaviour: checkBehaviour(behaviour, `--rule ${text}`), text: path };
}

/** mulberry32: a small seeded generator, so `--seed` replays the same sequence of failures. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** True when `path` is `prefix` or lies under it (whole segments: /crm covers /crm/x, not /crmx). */
function under(path: string, prefix: string): boolean {
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Decides the answers of one sink: the defaults, overridden field by field by the longest rule
 * whose path covers the request's. Requests under a fail rate each take the next number of the
 * seeded sequence, so a run with the same seed fails the same share of the same requests in order.
 */
export class AnswerPolicy {
  private readonly rules: Rule[];
  private readonly random: () => number;

  constructor(
    private readonly defaults: Behaviour,
    rules: Rule[],
    readonly seed: number,
  ) {
    this.rules = [...rules].sort((a, b) => b.path.length - a.path.length);
    this.random = seeded(seed);
  }

  answer(path: string): Answer {
    const rule = this.rules.find((r) => under(path, r.path));
    const b = rule ? { ...this.defaults, ...rule.behaviour } : this.defaults;
    const by = rule ? `rule ${rule.text}` : 'default';
    if (b.hang) return { status: null, headers: {}, body: '', delayMs: 0, by: `${by}: hang` };
    let status = b.status ?? (b.retryAfterS !== undefined ? 503 : 200);
    let why = b.status !== undefined || b.retryAfterS !== undefined ? 'status' : 'ok';
    if (b.failRate && this.random() < b.failRate) {
      status = 500;
      why = `fail rate ${b.failRate}`;
    }
    const body = JSON.stringify({ status, by: `${by}: ${why}` });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length) };
    if (b.retryAfterS !== undefined && (status === 429 || status === 503)) headers['retry-after'] = String(b.retryAfterS);
    return { status, headers, body, delayMs: b.delayMs ?? 0, by: `${by}: ${why}` };
  }
}
