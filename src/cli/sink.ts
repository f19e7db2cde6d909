import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import type { Command } from 'commander';
import { isValidSecret } from '../delivery/sign.js';
import { AnswerPolicy, checkBehaviour, MAX_DELAY_MS, parseRule, PolicyError, type Behaviour, type Rule } from '../sink/policy.js';
import type { SinkRecord } from '../sink/records.js';
import { CliError, type CliIo } from './io.js';
import { withCore } from './database.js';

interface SinkCliOptions {
  host: string;
  port: string;
  status?: string;
  failRate?: string;
  seed?: string;
  delay?: string;
  hang?: boolean;
  retryAfter?: string;
  rule: string[];
  secret?: string;
}

const HELP = `
Every request is recorded in the database (beside a running \`tel serve\`), shown one line each
(--json: one JSON object a line) and in \`tel watch\` (pane 3, Received). A request with Standard
Webhooks headers is checked with its hook's secret (found by X-Hook-ID, or by webhook-id among
the deliveries being sent; a rotated-out secret counts during its grace) or with --secret:
valid, invalid, unsigned or unknown hook.

Misbehave on purpose to see retries, Retry-After, auto-disable and the circuit breaker at work:
--status, --fail-rate (500 that often; --seed repeats a run's sequence), --delay, --hang (never
answer), --retry-after (with 429 or 503; alone it means 503), and per path --rule PATH=ACTION,…
where ACTION is a status, delay:MS, hang, fail:RATE or retry-after:S (the longest matching path
wins; what a rule does not set comes from the options).

Examples:
  $ tel sink                                   answer 200 on http://127.0.0.1:9000
  $ tel sink --port 9001 --fail-rate 0.3 --seed 42
  $ tel sink --status 503 --retry-after 5
  $ tel sink --rule '/crm=503' --rule '/slow=delay:2000' --rule '/dead=hang'
  $ tel sink --json | jq -c '{path, status, verdict}'

Stops cleanly on Ctrl-C (SIGINT) or SIGTERM, with every request recorded.`;

/** A whole number option within bounds, or a usage error. */
function whole(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new CliError(`${name} must be a whole number ${min}..${max}, not ${value}.`, 2);
  return n;
}

/** The behaviour and rules the options ask for; usage errors as one sentence. */
function policyOf(opts: SinkCliOptions): { defaults: Behaviour; rules: Rule[] } {
  const failRate = opts.failRate === undefined ? undefined : Number(opts.failRate);
  const defaults: Behaviour = {
    status: whole(opts.status, '--status', 200, 599),
    failRate,
    delayMs: whole(opts.delay, '--delay', 0, MAX_DELAY_MS),
    hang: opts.hang,
    retryAfterS: whole(opts.retryAfter, '--retry-after', 0, 86_400),
  };
  try {
    return { defaults: checkBehaviour(defaults, 'options'), rules: opts.rule.map(parseRule) };
  } catch (err) {
    if (err instanceof PolicyError) throw new CliError(err.message.replace(/^options: /, ''), 2);
    throw err;
  }
}

/** One line of the sink's output for a recorded request. */
function recordLine(r: SinkRecord, hookName: string | null): string {
  const d = new Date(r.received);
  const time = `${[d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')}.${String(d.getMilliseconds()).padStart(3, '0')}`;
  const answer = r.status === null ? 'no answer' : `${r.status} ${r.latencyMs}ms`;
  const who = r.hookId ? `  hook ${hookName || r.hookId}` : '';
  const event = r.eventId ? `  event ${r.eventId}` : '';
  return `${time} ${r.method} ${r.path}${r.query ? `?${r.query}` : ''} → ${answer}  ${r.verdict}${who}${event}  (${r.answeredBy})`;
}

/** A record as `--json` prints it. */
function recordJson(r: SinkRecord, hookName: string | null): Record<string, unknown> {
  return {
    id: r.id,
    received: new Date(r.received).toISOString(),
    listener: r.listener,
    method: r.method,
    path: r.path,
    query: r.query,
    headers: r.headers,
    body: r.body,
    body_bytes: r.bodyBytes,
    event_id: r.eventId,
    hook_id: r.hookId,
    hook_name: hookName,
    account_id: r.accountId,
    verdict: r.verdict,
    verdict_detail: r.verdictDetail,
    status: r.status,
    reply: r.reply,
    answered_by: r.answeredBy,
    latency_ms: r.latencyMs,
  };
}

/** `tel sink`: a webhook receiver for the lab that records what it gets and answers as told. */
export function defineSink(sink: Command, io: CliIo): void {
  sink
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '9000')
    .option('--status <code>', 'answer this status (200..599; default 200)')
    .option('--fail-rate <rate>', 'answer 500 to this share of requests (0..1)')
    .option('--seed <n>', 'seed of the --fail-rate sequence (default: a random one, printed)')
    .option('--delay <ms>', 'answer after this many milliseconds')
    .option('--hang', 'never answer')
    .option('--retry-after <s>', 'send Retry-After with a 429 or 503 (alone: answer 503)')
    .option('--rule <path=action>', "per path: '/crm=503', '/slow=delay:2000', '/x=503,retry-after:5' (repeatable)", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--secret <whsec>', "check every signature with this secret instead of the hooks' own")
    .addHelpText('after', HELP)
    .action(async (opts: SinkCliOptions, cmd: Command) => {
      const port = whole(opts.port, '--port', 0, 65535)!;
      const { defaults, rules } = policyOf(opts);
      const seed = whole(opts.seed, '--seed', 0, 2 ** 32 - 1) ?? randomInt(2 ** 31);
      if (opts.secret !== undefined && !isValidSecret(opts.secret)) throw new CliError('--secret must be whsec_ followed by base64 of 24 to 64 bytes.', 2);
      await withCore(cmd, async (core, g) => {
        // a batch's lines in one write: a line each would cost a busy sink a quarter of its time
        const print = (batch: { record: SinkRecord; hookName: string | null }[]) =>
          io.out(batch.map(({ record, hookName }) => (g.json ? JSON.stringify(recordJson(record, hookName)) : recordLine(record, hookName))).join('\n'));
        let sink;
        try {
          // the receiver (node:http and all) loads only when a sink starts
          const { startSinkReceiver } = await import('../sink/receiver.js');
          sink = await startSinkReceiver(core, { host: opts.host, port, policy: new AnswerPolicy(defaults, rules, seed), secret: opts.secret, recorded: print });
        } catch (err) {
          throw new CliError(`Cannot listen on ${opts.host}:${port}: ${(err as Error).message}.`);
        }
        const seeded = defaults.failRate || rules.some((r) => r.behaviour.failRate) ? ` (--seed ${seed})` : '';
        io.out(g.json ? JSON.stringify({ listening: sink.url, seed }) : `tel sink listening on ${sink.url}, recording in ${g.db}${seeded}`);
        const stop = new AbortController();
        await Promise.race(['SIGINT', 'SIGTERM'].map((s) => once(process, s, { signal: stop.signal }))).finally(() => stop.abort());
        io.err('tel sink: stopping…');
        await sink.close();
      });
    });
}
