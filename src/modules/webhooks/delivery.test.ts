import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createServer } from 'node:net';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { nowGregorian } from '../../util/time.js';
import { pruneAttempts } from '../../delivery/attempts.js';
import { deliverySettings } from '../../delivery/settings.js';
import { underMutation } from '../../../test/helpers/mutation.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

describe('webhook delivery to a real local sink', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let token: string;
  let n = 0;

  /** A fresh path on the sink, so each test sees only its own requests. */
  const route = () => `/t${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;

  async function hook(data: Record<string, unknown>): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token, data: { name: `hook ${n}`, hook: 'channel_create', ...data } });
    expect(r.status).toBe(201);
    return r.body.data.id;
  }

  async function call(extra: Record<string, unknown> = {}) {
    const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', ...extra } });
    expect(r.status).toBe(201);
    return r.body.data.events as Record<string, unknown>[];
  }

  async function attempts(hookId: string, query = ''): Promise<any> {
    return srv.request('GET', `/v2/accounts/${account}/webhooks/${hookId}/attempts${query}`, { token });
  }

  /** `fn`'s answer once `ok` holds; fails the test when it does not within `ms`. */
  async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (ok(v)) return v;
      if (Date.now() > until) throw new Error(`not reached within ${ms} ms; last: ${JSON.stringify(v, (_k, x) => (x instanceof Headers ? undefined : x)).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    token = srv.adminToken;
    const cfg = await srv.request('POST', '/v2/system_configs/webhooks', {
      token,
      data: { default: { retry_base_delay_ms: 20, retry_max_delay_ms: 200, request_timeout_ms: 400, attempt_failure_count: 100 } },
    });
    expect(cfg.status).toBe(200);
    account = (await createSubAccount(srv, srv.master.account_id, 'Hooks Inc')).id;
    sink.respond((r) => (r.path.startsWith('/fail') ? { status: 500 } : { status: 200 }));
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('posts JSON with the hook, account and stable event id headers', async () => {
    const path = route();
    const id = await hook({ uri: `${sink.url}${path}`, format: 'json' });
    const events = await call({ caller_id_number: '+15550001111' });
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-hook-id']).toBe(id);
    expect(req.headers['x-account-id']).toBe(account);
    expect(req.headers['x-event-id']).toMatch(/^[0-9a-f]{32}$/);
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({ hook_event: 'channel_create', caller_id_number: '+15550001111', account_id: account, call_id: events[0].call_id });
  });

  it('posts form-data by default, custom_data overwriting', async () => {
    const path = route();
    await hook({ uri: `${sink.url}${path}`, custom_data: { caller_id_name: 'Overwritten Name', team: 'blue sky' } });
    await call({ caller_id_name: 'Original' });
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.body).toContain('caller_id_name=Overwritten+Name');
    expect(req.body).toContain('team=blue+sky');
    expect(req.body).toContain('is_internal_leg=false');
    const form = new URLSearchParams(req.body);
    expect(form.get('hook_event')).toBe('channel_create');
  });

  it('get sends the payload as a query string, with & when the uri already has one; put sends a body', async () => {
    const getPath = route();
    const putPath = route();
    await hook({ uri: `${sink.url}${getPath}?token=abc`, http_verb: 'get' });
    await hook({ uri: `${sink.url}${putPath}`, http_verb: 'put', format: 'json' });
    await call();
    const [get] = await sink.waitFor(1, { filter: on(getPath) });
    expect(get.method).toBe('GET');
    expect(get.url).toMatch(new RegExp(`^${getPath}\\?token=abc&`));
    expect(get.query.get('token')).toBe('abc');
    expect(get.query.get('hook_event')).toBe('channel_create');
    expect(get.body).toBe('');
    const [put] = await sink.waitFor(1, { filter: on(putPath) });
    expect(put.method).toBe('PUT');
    expect(JSON.parse(put.body).hook_event).toBe('channel_create');
  });

  it('a #fragment of the uri stays on this side: never in the request line, never glued to the query', async () => {
    const [getPath, postPath] = [route(), route()];
    sink.respond(() => ({ status: 200 }));
    await hook({ uri: `${sink.url}${getPath}?token=abc#section`, http_verb: 'get' });
    await hook({ uri: `${sink.url}${postPath}?token=abc#section`, format: 'json' });
    await call();
    const [get] = await sink.waitFor(1, { filter: on(getPath) });
    const [post] = await sink.waitFor(1, { filter: on(postPath) });
    expect(get.url).not.toContain('#');
    expect(get.query.get('token')).toBe('abc');
    expect(get.query.get('hook_event')).toBe('channel_create');
    expect(post.url).toBe(`${postPath}?token=abc`);
  });

  it('retries a failure up to `retries` more times with the same event id, and records every try newest first', async () => {
    const path = route();
    let seen = 0;
    // the answer that succeeds comes 60 ms late: the attempt's latency shows it
    sink.respond(async (r) => {
      if (r.path !== path) return { status: r.path.startsWith('/fail') ? 500 : 200 };
      if (++seen <= 2) return { status: 500 };
      await new Promise((done) => setTimeout(done, 60));
      return { status: 200 };
    });
    // retries 500 ms after the first try, then 1 s after the second
    await srv.request('PATCH', `/v2/accounts/${account}/configs/webhooks`, { token, data: { retry_base_delay_ms: 500, retry_max_delay_ms: 5000 } });
    const id = await hook({ uri: `${sink.url}${path}`, retries: 2 });
    const before = nowGregorian();
    await call();
    const reqs = await sink.waitFor(3, { filter: on(path), timeoutMs: 6000 });
    await srv.request('DELETE', `/v2/accounts/${account}/configs/webhooks`, { token });
    expect(new Set(reqs.map((r) => r.headers['x-event-id'])).size).toBe(1);
    const r = await eventually(() => attempts(id), (a) => a.body.data.length === 3);
    expect(r.status).toBe(200);
    const [last, second, first] = r.body.data;
    expect(first).toMatchObject({ hook_id: id, result: 'failure', reason: 'bad response code', 'retries left': 2, retries_left: 2, resp_status_code: '500', method: 'post' });
    expect(second).toMatchObject({ result: 'failure', retries_left: 1 });
    expect(last).toMatchObject({ result: 'success', resp_status_code: '200', hook_event: 'channel_create' });
    expect(last).not.toHaveProperty('retries left');
    expect(last.timestamp).toBeGreaterThanOrEqual(before);
    expect(last.timestamp).toBeLessThanOrEqual(nowGregorian());
    expect(first.req_body).toContain('hook_event=channel_create');
    expect(last.latency_ms).toBeGreaterThanOrEqual(55);
    expect(last.latency_ms).toBeLessThan(1000);
    // exponential backoff: 500 ms, then twice that. A timer fires late on a busy machine, never
    // early: the lower bounds pin the schedule; the upper ones allow a second of lateness (a CI
    // machine's neighbours have made it half of one) and still refuse a wait of a later step.
    const waits = [reqs[1].at - reqs[0].at, reqs[2].at - reqs[1].at];
    expect(waits[0]).toBeGreaterThanOrEqual(490);
    expect(waits[0]).toBeLessThan(1490);
    expect(waits[1]).toBeGreaterThanOrEqual(990);
    expect(waits[1]).toBeLessThan(1990 + 1000);
  });

  it("shows a JSON try's request body as the receiver got it, though it is stored once (in the outbox)", async () => {
    const path = route();
    const id = await hook({ uri: `${sink.url}${path}`, format: 'json' });
    await call({ caller_id_number: '+14155550177' });
    const [got] = await sink.waitFor(1, { filter: on(path) });
    const r = await eventually(() => attempts(id), (a) => a.body.data.length === 1);
    expect(r.body.data[0].req_body).toBe(got.body);
    expect(JSON.parse(got.body).caller_id_number).toBe('+14155550177');
    const stored = srv.core.db.prepare('SELECT req_body FROM delivery_attempts WHERE source_id = ?').get(id) as { req_body: string | null };
    expect(stored.req_body).toBeNull();
  });

  it('any 2xx is success (204 is not retried); retries run out on a dead status', async () => {
    const ok = route();
    const dead = `/fail${route()}`;
    sink.respond((r) => (r.path === ok ? { status: 204 } : { status: r.path.startsWith('/fail') ? 503 : 200 }));
    const okId = await hook({ uri: `${sink.url}${ok}`, retries: 3 });
    const deadId = await hook({ uri: `${sink.url}${dead}`, retries: 1 });
    await call();
    await sink.waitFor(2, { filter: on(dead) });
    const d = await eventually(() => attempts(deadId), (a) => a.body.data.length === 2);
    expect(d.body.data.map((a: any) => [a.result, a.retries_left])).toEqual([
      ['failure', 0],
      ['failure', 1],
    ]);
    const o = await attempts(okId);
    expect(o.body.data).toHaveLength(1);
    expect(o.body.data[0]).toMatchObject({ result: 'success', resp_status_code: '204' });
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.requests.filter(on(ok))).toHaveLength(1);
    expect(sink.requests.filter(on(dead))).toHaveLength(2);
  });

  it('a response that never comes is a timeout failure; a refused connection is a client error', async () => {
    const hang = route();
    sink.respond((r) => (r.path === hang ? 'hang' : { status: 200 }));
    const port = await closedPort();
    const hangId = await hook({ uri: `${sink.url}${hang}`, retries: 0 });
    const refusedId = await hook({ uri: `http://127.0.0.1:${port}/nobody`, retries: 0 });
    await call();
    const h = await eventually(() => attempts(hangId), (a) => a.body.data.length === 1);
    expect(h.body.data[0]).toMatchObject({ result: 'failure', reason: 'response timeout', client_error: 'timeout after 400 ms' });
    expect(h.body.data[0].latency_ms).toBeGreaterThanOrEqual(395);
    expect(h.body.data[0].latency_ms).toBeLessThan(800);
    const c = await eventually(() => attempts(refusedId), (a) => a.body.data.length === 1);
    expect(c.body.data[0]).toMatchObject({ result: 'failure', reason: 'connection error', client_error: 'econnrefused' });
    sink.releaseHung();
  });

  it('honours Retry-After on a 429 (within the configured maximum)', async () => {
    const path = route();
    let seen = 0;
    sink.respond((r) => (r.path === path && ++seen === 1 ? { status: 429, headers: { 'Retry-After': '1' } } : { status: 200 }));
    const cfg = await srv.request('PATCH', `/v2/accounts/${account}/configs/webhooks`, { token, data: { retry_max_delay_ms: 5000 } });
    expect(cfg.body.data.retry_max_delay_ms).toBe(5000);
    await hook({ uri: `${sink.url}${path}`, retries: 1 });
    await call();
    const reqs = await sink.waitFor(2, { filter: on(path), timeoutMs: 4000 });
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(950);
    expect(reqs[1].at - reqs[0].at).toBeLessThan(1900);
    await srv.request('DELETE', `/v2/accounts/${account}/configs/webhooks`, { token });
  });

  it('signs with Standard Webhooks when the hook has a secret (verified by the standardwebhooks package)', async () => {
    const path = route();
    sink.respond(() => ({ status: 200 }));
    await hook({ uri: `${sink.url}${path}`, format: 'json', secret: SECRET });
    await call();
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(req.headers['webhook-id']).toBe(req.headers['x-event-id']);
    expect(req.headers['webhook-signature']).toMatch(/^v1,/);
    const verified = new Webhook(SECRET).verify(req.body, req.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified.hook_event).toBe('channel_create');
    expect(() => new Webhook(SECRET).verify(`${req.body} `, req.headers as Record<string, string>)).toThrow();
  });

  it('a uri with user:password@ sends them as Basic authorization (as the HTTP client of Kazoo does), never in the attempt log', async () => {
    const path = route();
    sink.respond(() => ({ status: 200 }));
    const id = await hook({ uri: `${sink.url.replace('://', '://crm%20bot:p%40ss@')}${path}?k=v`, http_verb: 'get' });
    await call();
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('crm bot:p@ss').toString('base64')}`);
    expect(req.url).toMatch(new RegExp(`^${path}\\?k=v&`));
    const [attempt] = (await eventually(() => attempts(id), (a) => a.body.data.length === 1)).body.data;
    expect(attempt.result).toBe('success');
    expect(attempt.uri).toMatch(new RegExp(`^${sink.url}${path}\\?k=v&`));
    expect(JSON.stringify(attempt)).not.toContain('p%40ss');
    expect(JSON.stringify(attempt)).not.toContain(Buffer.from('crm bot:p@ss').toString('base64'));
  });

  it('pages attempts with page_size and start_key/next_start_key, and filters by created_from/created_to', async () => {
    const path = route();
    const id = await hook({ uri: `${sink.url}${path}`, hook: 'channel_destroy' });
    for (let i = 0; i < 5; i++) await call();
    await sink.waitFor(5, { filter: on(path) });
    await eventually(() => attempts(id), (a) => a.body.data.length === 5);
    const p1 = await attempts(id, '?page_size=2');
    expect(p1.body.page_size).toBe(2);
    expect(p1.body.next_start_key).toBeTruthy();
    const p2 = await attempts(id, `?page_size=2&start_key=${p1.body.next_start_key}`);
    const p3 = await attempts(id, `?page_size=2&start_key=${p2.body.next_start_key}`);
    expect(p3.body.data).toHaveLength(1);
    expect(p3.body.next_start_key).toBeUndefined();
    const ids = [...p1.body.data, ...p2.body.data, ...p3.body.data].map((a: any) => a.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(5);
    const future = nowGregorian() + 3600;
    expect((await attempts(id, `?created_from=${future}`)).body.data).toHaveLength(0);
    expect((await attempts(id, `?created_to=${nowGregorian()}&created_from=${nowGregorian() - 60}`)).body.data).toHaveLength(5);
    const bad = await attempts(id, `?created_from=${future}&created_to=${future - 10}`);
    expect(bad.status).toBe(400);
    // the shape every time-ranged listing answers, as Kazoo's crossbar_view does
    expect(bad.body.data).toEqual({ created_from: { date_range: { message: `created_to ${future - 10} is prior to created_from ${future}`, cause: future } } });
    const all = await srv.request('GET', `/v2/accounts/${account}/webhooks/attempts?paginate=false`, { token });
    expect(all.body.data.length).toBeGreaterThan(5);
    // the account's listing pages and filters the same way, on any field of an attempt
    const ofAccount = async (query: string) => (await srv.request('GET', `/v2/accounts/${account}/webhooks/attempts${query}`, { token })).body;
    expect((await ofAccount('?page_size=1')).data).toHaveLength(1);
    expect((await ofAccount(`?created_from=${future}`)).data).toHaveLength(0);
    expect((await ofAccount(`?paginate=false&filter_hook_id=${id}`)).data.map((a: any) => a.id).sort()).toEqual([...ids].sort());
    const failures = (await ofAccount('?paginate=false&filter_result=failure')).data;
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((a: any) => a.result === 'failure')).toBe(true);
  });

  it('attempts older than attempts_retention_s are pruned', async () => {
    const path = route();
    sink.respond(() => ({ status: 200 }));
    const id = await hook({ uri: `${sink.url}${path}`, hook: 'channel_destroy' });
    await call();
    await eventually(() => attempts(id), (a) => a.body.data.length === 1);
    const cfg = (await srv.request('GET', '/v2/system_configs/webhooks', { token })).body.data;
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: { default: { ...cfg.default, attempts_retention_s: 60 } } });
    const retention = deliverySettings(srv.core).attemptsRetentionSeconds;
    expect(retention).toBe(60);
    pruneAttempts(srv.core, retention, Date.now() + 30_000);
    expect((await attempts(id)).body.data).toHaveLength(1);
    pruneAttempts(srv.core, retention, Date.now() + 61_000);
    expect((await attempts(id)).body.data).toHaveLength(0);
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: cfg });
  });

  it('deliveries still queued when their hook is deleted are not sent', async () => {
    const path = route();
    let hang = true;
    sink.respond((r) => (r.path === path && hang ? 'hang' : { status: 200 }));
    const cfg = (await srv.request('GET', '/v2/system_configs/webhooks', { token })).body.data;
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: { default: { ...cfg.default, per_target_concurrency: 1 } } });
    const id = await hook({ uri: `${sink.url}${path}`, retries: 0 });
    for (let i = 0; i < 5; i++) await call();
    await sink.waitFor(1, { filter: on(path) });
    expect((await srv.request('DELETE', `/v2/accounts/${account}/webhooks/${id}`, { token })).status).toBe(200);
    hang = false;
    // the one in flight times out (400 ms); the four waiting behind it are dropped
    await new Promise((r) => setTimeout(r, 700));
    expect(sink.requests.filter(on(path))).toHaveLength(1);
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: cfg });
  });

  // forty calls and their deliveries within 3 s: a figure the instrumentation of `npm run mutate` cannot hold
  it.skipIf(underMutation)('a dead endpoint does not delay deliveries to the others', async () => {
    const dead = await startSink();
    dead.respond(() => 'hang');
    const live = route();
    sink.respond(() => ({ status: 200 }));
    await srv.request('PATCH', `/v2/accounts/${account}/configs/webhooks`, { token, data: { request_timeout_ms: 5000 } });
    await hook({ uri: `${dead.url}/never`, hook: 'channel_answer', retries: 0 });
    await hook({ uri: `${sink.url}${live}`, hook: 'channel_answer', retries: 0 });
    const started = Date.now();
    await Promise.all(Array.from({ length: 40 }, () => call()));
    await sink.waitFor(40, { filter: on(live), timeoutMs: 3000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(dead.requests.length).toBeGreaterThan(0);
    await srv.request('DELETE', `/v2/accounts/${account}/configs/webhooks`, { token });
    await dead.close();
  });
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
