import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../src/core.js';
import { newSecret, signatureHeaders } from '../src/delivery/sign.js';
import { AnswerPolicy } from '../src/sink/policy.js';
import { runTel, spawnTel } from './helpers/cli.js';
import { httpRequest, tempDir } from './helpers/server.js';
import { startTelServe, startTelSink, until, type TelProcess } from './helpers/tel-process.js';
import { holdWriteLock } from './helpers/lock.js';

type Received = Record<string, any>;

/** Rows by a key, in their order. */
function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
  return out;
}

// `tel serve` and `tel sink` as real processes on one database file: what the sink records of
// tel's deliveries (verdicts, answers, event ids) against what tel recorded of them.
describe('tel serve delivering to tel sink', () => {
  const tmp = tempDir('tel-sink-');
  const db = join(tmp.dir, 'lab.db');
  let serve: TelProcess & { url: string };
  let token = '';
  let master = '';
  const sinks: TelProcess[] = [];

  const api = (method: string, path: string, data?: unknown) => httpRequest(serve.url, method, path, { token, data });
  async function account(name: string, settings: Record<string, unknown> = {}): Promise<string> {
    const r = await api('PUT', `/v2/accounts/${master}`, { name });
    expect(r.status, r.text).toBe(201);
    const cfg = await api('POST', `/v2/accounts/${r.body.data.id}/configs/webhooks`, settings);
    expect(cfg.status, cfg.text).toBe(200);
    return r.body.data.id;
  }
  async function hook(accountId: string, data: Record<string, unknown>): Promise<string> {
    const r = await api('PUT', `/v2/accounts/${accountId}/webhooks`, { hook: 'channel_create', format: 'json', retries: 0, ...data });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  }
  const calls = (accountId: string, n = 1) =>
    Promise.all(Array.from({ length: n }, async () => expect((await api('PUT', `/v2/accounts/${accountId}/simulations`, { kind: 'call', answer: false })).status).toBe(201)));
  const attempts = async (accountId: string, hookId: string): Promise<Record<string, any>[]> =>
    (await api('GET', `/v2/accounts/${accountId}/webhooks/${hookId}/attempts?paginate=false`)).body.data;
  async function sink(...options: string[]) {
    const s = await startTelSink(db, ...options);
    sinks.push(s);
    return s;
  }
  const received = (s: TelProcess, path?: string): Received[] => s.json().filter((r) => r.id && (path === undefined || r.path === path));

  beforeAll(async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'secret-pass']);
    expect(init.code, init.stderr).toBe(0);
    const { account_id, api_key } = JSON.parse(init.stdout);
    master = account_id;
    serve = await startTelServe(db);
    token = (await httpRequest(serve.url, 'PUT', '/v2/api_auth', { data: { api_key } })).body.auth_token;
  });
  afterAll(async () => {
    for (const s of [...sinks, serve]) if (s) await s.stop('SIGKILL');
    tmp.cleanup();
  });

  it('records valid, invalid (wrong secret), unsigned and unknown-hook requests with their verdicts, and stops on SIGTERM with all of them written', async () => {
    const acct = await account('Verdicts');
    const secret = newSecret();
    const main = await sink();
    const strict = await sink('--secret', newSecret());
    const signed = await hook(acct, { name: 'Signed', uri: `${main.url}/signed`, secret });
    const plain = await hook(acct, { name: 'Plain', uri: `${main.url}/plain` });
    await hook(acct, { name: 'Elsewhere', uri: `${strict.url}/wrong`, secret });
    await calls(acct);
    const body = '{"made":"by hand"}';
    const forged = await fetch(`${main.url}/forged`, {
      method: 'POST',
      body,
      headers: { ...signatureHeaders([secret], 'evt_by_hand', body), 'x-hook-id': 'f'.repeat(32) },
    });
    expect(forged.status).toBe(200);

    await main.until(() => received(main).length === 3, 'three requests at the main sink');
    await strict.until(() => received(strict).length === 1, 'one request at the strict sink');
    const [ok] = received(main, '/signed');
    expect(ok).toMatchObject({ verdict: 'valid', verdict_detail: "signed with the hook's secret", hook_id: signed, hook_name: 'Signed', account_id: acct, status: 200 });
    expect(ok.event_id).toBe(ok.headers['x-event-id']);
    expect(received(main, '/plain')[0]).toMatchObject({ verdict: 'unsigned', hook_id: plain });
    expect(received(main, '/forged')[0]).toMatchObject({ verdict: 'unknown hook', event_id: 'evt_by_hand', hook_id: 'f'.repeat(32) });
    expect(received(strict)[0]).toMatchObject({ verdict: 'invalid', verdict_detail: 'no signature matches the secret', path: '/wrong' });

    expect(await main.stop('SIGTERM')).toBe(0);
    const core = openCore(db);
    try {
      const rows = core.db.prepare('SELECT path, verdict, status FROM sink_requests WHERE listener = ? ORDER BY id').all(new URL(main.url).host);
      expect(rows.map((r) => `${r.path} ${r.verdict} ${r.status}`).sort()).toEqual(['/forged unknown hook 200', '/plain unsigned 200', '/signed valid 200']);
    } finally {
      closeCore(core);
    }
  });

  it('answers at once while another process holds the file, and writes the records once it lets go', async () => {
    const s = await sink();
    // the lock is held long enough that an answer waiting for it could not pass for one given at
    // once, even with a busy machine's delays
    const { released } = await holdWriteLock(db, 3000);
    const post = (i: number) => fetch(`${s.url}/locked/${i}`, { method: 'POST', body: '{}' });
    expect((await post(0)).status).toBe(200);
    // its batch meets the lock by now: later requests are answered all the same
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    const answers = await Promise.all([1, 2, 3, 4].map(post));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(received(s)).toEqual([]);
    await released;
    await s.until(() => received(s).length === 5, 'the records once the file is free');
    expect(received(s).every((r) => r.verdict === 'unsigned' && r.status === 200)).toBe(true);
  });

  it('--fail-rate with a seed drives retries and an auto-disable; the sink and tel count the same tries, statuses and failures', async () => {
    const failures = 3;
    const acct = await account('Flaky', { retry_base_delay_ms: 20, attempt_failure_count: failures, attempt_failure_expiry_ms: 600_000 });
    const seed = 20260501;
    const s = await sink('--fail-rate', '0.7', '--seed', String(seed));
    const id = await hook(acct, { name: 'Flaky', uri: `${s.url}/flaky`, retries: 1 });
    const enabled = async () => (await api('GET', `/v2/accounts/${acct}/webhooks/${id}`)).body.data.enabled as boolean;
    const settled = () => [...groupBy(received(s), (r) => r.event_id).values()].every((tries) => tries.length === 2 || tries[0].status === 200);
    // in rounds, each settled before the next, until the third delivery failing twice turns the hook off
    for (let round = 1; round <= 10 && (await enabled()); round++) {
      await calls(acct, 4);
      await s.until(async () => !(await enabled()) || (groupBy(received(s), (r) => r.event_id).size >= round * 4 && settled()), 'the round to settle');
    }
    // what was in flight when it went off is answered and recorded
    await new Promise((r) => setTimeout(r, 300));
    const hookNow = (await api('GET', `/v2/accounts/${acct}/webhooks/${id}`)).body.data;
    expect(hookNow.enabled).toBe(false);
    expect(hookNow.disable_reason).toMatch(new RegExp(`^too many failed deliveries: ${failures} within`));

    const got = received(s);
    const sent = await until(async () => {
      const a = await attempts(acct, id);
      return a.length === got.length && a;
    }, 'tel to record every try');
    // the same tries, event by event, with the same statuses
    const statuses = (rows: Record<string, any>[], ev: (r: Record<string, any>) => string, st: (r: Record<string, any>) => number) =>
      Object.fromEntries([...groupBy(rows, ev)].map(([k, rs]) => [k, rs.map(st).sort()]));
    expect(statuses(sent, (a) => a.event_id, (a) => Number(a.resp_status_code))).toEqual(statuses(got, (r) => r.event_id, (r) => r.status));
    // a failed first try was retried (unless the hook went off meanwhile), a success never
    const byEvent = [...groupBy(got, (r) => r.event_id).values()];
    for (const tries of byEvent) expect(tries.length === 1 || tries[0].status === 500).toBe(true);
    expect(byEvent.filter((t) => t.length === 2).length).toBeGreaterThan(0);
    // the failures the disabler counted are events the sink failed twice
    expect(byEvent.filter((t) => t.length === 2 && t.every((x) => x.status === 500)).length).toBeGreaterThanOrEqual(failures);
    // the seed decides how many of those requests fail, in whatever order they came
    const policy = new AnswerPolicy({ failRate: 0.7 }, [], seed);
    const expected500 = Array.from({ length: got.length }, () => policy.answer('/flaky').status).filter((x) => x === 500).length;
    expect(got.filter((r) => r.status === 500).length).toBe(expected500);
    // once disabled, nothing more is sent
    await calls(acct, 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(received(s).length).toBe(got.length);
  });

  it('--hang never answers (tel times out) and --retry-after makes tel wait that long before retrying', async () => {
    const acct = await account('Stubborn', { request_timeout_ms: 400, retry_base_delay_ms: 20, attempt_failure_count: 100 });
    const hanging = await sink('--hang');
    const busy = await sink('--retry-after', '1');
    const hung = await hook(acct, { name: 'Hung', uri: `${hanging.url}/hung` });
    const retried = await hook(acct, { name: 'Busy', uri: `${busy.url}/busy`, retries: 1 });
    await calls(acct);

    await hanging.until(() => received(hanging).length === 1, 'the hung request to be recorded');
    expect(received(hanging)[0]).toMatchObject({ status: null, latency_ms: null, answered_by: 'default: hang', reply: null });
    const [timeout] = await until(async () => {
      const a = await attempts(acct, hung);
      return a.length === 1 && a;
    }, 'the timed-out attempt');
    expect(timeout).toMatchObject({ result: 'failure', reason: 'response timeout', client_error: 'timeout after 400 ms' });

    await busy.until(() => received(busy).length === 2, 'the retry after Retry-After', 6000);
    const [first, second] = received(busy);
    expect(first).toMatchObject({ status: 503, reply: { headers: { 'retry-after': '1' } }, event_id: second.event_id });
    expect(Date.parse(second.received) - Date.parse(first.received)).toBeGreaterThanOrEqual(950);
    const both = await until(async () => {
      const a = await attempts(acct, retried);
      return a.length === 2 && a;
    }, 'both tries to be recorded');
    expect(both.map((a) => a.resp_status_code)).toEqual(['503', '503']);
    expect(await hanging.stop('SIGTERM')).toBe(0);
  });

  it('tel webhooks replay --failed-only --since T sends the failed deliveries again, to the sink, with the same event ids', async () => {
    const acct = await account('Replayed', { attempt_failure_count: 100 });
    const down = await sink('--rule', '/crm=500');
    const id = await hook(acct, { name: 'CRM', uri: `${down.url}/crm` });
    await hook(acct, { name: 'Fine', uri: `${down.url}/fine` });
    const since = new Date(Date.now() - 1000).toISOString();
    await calls(acct, 3);
    await down.until(() => received(down).length === 6, 'six deliveries');
    await until(async () => (await attempts(acct, id)).length === 3, 'the failures to be recorded');
    const failedIds = received(down, '/crm').map((r) => r.event_id).sort();
    expect(await down.stop()).toBe(0);

    const up = await sink('--port', new URL(down.url).port);
    const replay = await spawnTel(['webhooks', 'replay', '--db', db, '--account', acct, '--since', since, '--failed-only', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual({ replayed: 3, skipped: 0 });
    await up.until(() => received(up).length === 3, 'the replayed deliveries');
    expect(received(up).map((r) => r.path)).toEqual(['/crm', '/crm', '/crm']);
    expect(received(up).map((r) => r.event_id).sort()).toEqual(failedIds);
  });

  it('after tel webhooks rotate-secret both secrets verify (standardwebhooks) during the grace, only the new one after it', async () => {
    const acct = await account('Rotating');
    const s = await sink();
    const [before, after] = [newSecret(), newSecret()];
    const id = await hook(acct, { name: 'Rotating', uri: `${s.url}/rotating`, secret: before });
    const rotated = await spawnTel(['webhooks', 'rotate-secret', id, '--db', db, '--grace', '1500ms', '--secret', after, '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const graceEnds = Date.parse(JSON.parse(rotated.stdout).previous_secret_signs_until);
    await calls(acct);
    await s.until(() => received(s).length === 1, 'a delivery during the grace');
    const during = received(s)[0];
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(after).verify(during.body, during.headers)).toMatchObject({ hook_event: 'channel_create' });
    expect(new Webhook(before).verify(during.body, during.headers)).toMatchObject({ hook_event: 'channel_create' });
    expect(during).toMatchObject({ verdict: 'valid', verdict_detail: "signed with the hook's secret" });

    await new Promise((r) => setTimeout(r, Math.max(0, graceEnds - Date.now() + 50)));
    await calls(acct);
    await s.until(() => received(s).length === 2, 'a delivery after the grace');
    const later = received(s)[1];
    expect(later.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(after).verify(later.body, later.headers)).toBeTruthy();
    expect(() => new Webhook(before).verify(later.body, later.headers)).toThrow();
    expect(later.verdict).toBe('valid');
  });

  it('a hook with rate_limit_per_s is paced to it while an unlimited hook beside it keeps its rate', async () => {
    const acct = await account('Paced');
    const s = await sink();
    const rate = 5;
    const events = 12;
    await hook(acct, { name: 'Paced', uri: `${s.url}/paced`, rate_limit_per_s: rate });
    await hook(acct, { name: 'Free', uri: `${s.url}/free` });
    const fired = Date.now();
    await calls(acct, events);
    await s.until(() => received(s, '/paced').length === events, 'every paced delivery', 10_000);
    const times = (path: string) => received(s, path).map((r) => Date.parse(r.received)).sort((a, b) => a - b);
    const paced = times('/paced');
    const free = times('/free');
    expect(free).toHaveLength(events);
    // tries start 1/rate apart (a late one may make up for its lateness, never more than one interval):
    // no more than rate + 1 arrive in any second, and the whole takes at least (events - 2) intervals,
    // give or take the loopback's jitter
    const interval = 1000 / rate;
    const jitter = 50;
    const span = paced[events - 1] - paced[0];
    expect(span).toBeGreaterThanOrEqual((events - 2) * interval - jitter);
    for (let i = 0; i + rate < events; i++) expect(paced[i + rate] - paced[i]).toBeGreaterThanOrEqual((rate - 1) * interval - jitter);
    // the unlimited hook did not wait for its neighbour: all of it arrived before the paced one was a third through
    expect(free[events - 1]).toBeLessThan(paced[Math.floor(events / 3)]);
    expect(free[events - 1] - fired).toBeLessThan(span / 2);
  });
});
