import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel } from '../../../test/helpers/cli.js';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { newSecret } from '../../delivery/sign.js';
import { nowGregorian } from '../../util/time.js';

describe('replay, secret rotation and rate limits through the API', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let n = 0;
  const token = () => srv.adminToken;
  const route = () => `/r${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;
  const eventIds = (reqs: SinkRequest[]) => reqs.map((r) => r.headers['x-event-id']).sort();
  const failing = new Set<string>();

  async function hook(data: Record<string, unknown>): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token: token(), data: { name: `hook ${n}`, hook: 'channel_create', format: 'json', ...data } });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  }
  const call = async () => expect((await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token: token(), data: { kind: 'call', answer: false } })).status).toBe(201);
  const replay = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${account}/webhooks/replay`, { token: token(), data });
  const attempts = async (hookId: string) =>
    (await srv.request('GET', `/v2/accounts/${account}/webhooks/${hookId}/attempts?paginate=false`, { token: token() })).body.data as { result: string }[];
  async function until(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    sink.respond((r) => ({ status: failing.has(r.path) ? 500 : 200 }));
    const cfg = await srv.request('POST', '/v2/system_configs/webhooks', {
      token: token(),
      data: { default: { retry_base_delay_ms: 10, attempt_failure_count: 100, secret_rotation_grace_s: 1 } },
    });
    expect(cfg.status).toBe(200);
    account = (await createSubAccount(srv, srv.master.account_id, 'Replays')).id;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('PUT …/webhooks/replay sends failed deliveries again with their event ids; an event a replay brought through is not replayed as failed again', async () => {
    const bad = route();
    const good = route();
    failing.add(bad);
    const badHook = await hook({ uri: `${sink.url}${bad}`, retries: 0 });
    const goodHook = await hook({ uri: `${sink.url}${good}`, retries: 0 });
    const since = nowGregorian() - 1;
    for (let i = 0; i < 3; i++) await call();
    const failed = await sink.waitFor(3, { filter: on(bad) });
    await until(async () => (await attempts(badHook)).length === 3 && (await attempts(goodHook)).length === 3, 'the attempts');

    failing.delete(bad);
    const r = await replay({ since, failed_only: true });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toEqual({ replayed: 3, skipped: 0 });
    const again = await sink.waitFor(6, { filter: on(bad) });
    expect(eventIds(again.slice(3))).toEqual(eventIds(failed));
    await until(async () => (await attempts(badHook)).filter((a) => a.result === 'success').length === 3, 'the replays to succeed');
    expect((await replay({ since, failed_only: 'true' })).body.data).toEqual({ replayed: 0, skipped: 0 });

    // without failed_only every finished delivery of the window, here one hook's, counts once
    expect((await replay({ since, hook_id: goodHook })).body.data).toEqual({ replayed: 3, skipped: 0 });
    expect(eventIds((await sink.waitFor(6, { filter: on(good) })).slice(3))).toEqual(eventIds(sink.requests.filter(on(good)).slice(0, 3)));
    // a window that ends before the events holds none
    expect((await replay({ since: new Date(Date.now() - 3_600_000).toISOString(), until: '30m' })).body.data).toEqual({ replayed: 0, skipped: 0 });
  });

  it('deliveries of a disabled hook are left out and counted; naming it is refused', async () => {
    const path = route();
    failing.add(path);
    const id = await hook({ uri: `${sink.url}${path}`, retries: 0 });
    const since = nowGregorian() - 1;
    await call();
    await sink.waitFor(1, { filter: on(path) });
    await until(async () => (await attempts(id)).length === 1, 'the attempt');
    expect((await srv.request('PATCH', `/v2/accounts/${account}/webhooks/${id}`, { token: token(), data: { enabled: false } })).status).toBe(200);
    const r = await replay({ since, failed_only: true });
    expect(r.body.data).toMatchObject({ skipped: 1 });
    const named = await replay({ since, hook_id: id });
    expect(named.status).toBe(400);
    expect(named.body.data.hook_id.disabled.message).toMatch(/enable it first/);
  });

  it('refuses a replay without since, with an unreadable time or an inverted window, for an unknown hook', async () => {
    const missing = await replay({ failed_only: true });
    expect(missing.status).toBe(400);
    expect(missing.body.data.since.required).toBeDefined();
    expect((await replay({ since: 'last tuesday' })).body.data.since.type).toEqual({
      message: 'Value must be Gregorian seconds, an ISO 8601 date or a duration such as 2h',
      value: 'last tuesday',
    });
    expect((await replay({ since: '1h', until: '2h' })).body.data.until.date_range).toBeDefined();
    expect((await replay({ since: '1h', failed_only: 'maybe' })).status).toBe(400);
    expect((await replay({ since: '1h', hook_id: 'f'.repeat(32) })).status).toBe(404);
    const get = await srv.request('GET', `/v2/accounts/${account}/webhooks/replay`, { token: token() });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('PUT');
  });

  it('a PATCH of secret keeps the old one signing beside the new for secret_rotation_grace_s, then the new one alone', async () => {
    const path = route();
    const [oldSecret, newSecretValue] = [newSecret(), newSecret()];
    const id = await hook({ uri: `${sink.url}${path}`, secret: oldSecret });
    const patched = await srv.request('PATCH', `/v2/accounts/${account}/webhooks/${id}`, { token: token(), data: { secret: newSecretValue } });
    expect(patched.status).toBe(200);
    await call();
    const [during] = await sink.waitFor(1, { filter: on(path) });
    const headers = during.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(newSecretValue).verify(during.body, headers)).toMatchObject({ hook_event: 'channel_create' });
    expect(new Webhook(oldSecret).verify(during.body, headers)).toMatchObject({ hook_event: 'channel_create' });

    await new Promise((r) => setTimeout(r, 1100));
    await call();
    const after = (await sink.waitFor(2, { filter: on(path) }))[1];
    const afterHeaders = after.headers as Record<string, string>;
    expect(afterHeaders['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(newSecretValue).verify(after.body, afterHeaders)).toBeTruthy();
    expect(() => new Webhook(oldSecret).verify(after.body, afterHeaders)).toThrow();
  });

  it('rate_limit_per_s is validated, kept on the hook and shown by tel webhooks show; rotate-secret says until when the old secret signs', async () => {
    const bad = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, {
      token: token(),
      data: { name: 'fast', hook: 'channel_create', uri: `${sink.url}/x`, rate_limit_per_s: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data.rate_limit_per_s).toBeDefined();
    const id = await hook({ uri: `${sink.url}${route()}`, rate_limit_per_s: '2.5', secret: newSecret() });
    const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile]);
    const rotated = await tel('webhooks', 'rotate-secret', id, '--grace', '1h', '--json');
    expect(rotated.code, rotated.stderr).toBe(0);
    const until = Date.parse(JSON.parse(rotated.stdout).previous_secret_signs_until);
    expect(until - Date.now()).toBeGreaterThan(3_500_000);
    const show = JSON.parse((await tel('webhooks', 'show', id, '--account', account)).stdout);
    expect(show).toMatchObject({ rate_limit_per_s: 2.5, previous_secret_signs_until: new Date(until).toISOString() });
    expect((await tel('webhooks', 'rotate-secret', id, '--grace', 'a while')).code).toBe(2);
    expect((await tel('webhooks', 'rotate-secret', 'f'.repeat(32))).code).toBe(1);
    expect((await tel('webhooks', 'rotate-secret', id, '--account', srv.master.account_id)).code).toBe(1);
  });
});
