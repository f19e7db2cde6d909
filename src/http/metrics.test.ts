import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../../test/helpers/server.js';
import { until } from '../../test/helpers/tel-process.js';
import { startSink, type Sink } from '../../test/helpers/sink.js';
import { closeCore, openCore } from '../core.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { startApi } from './app.js';

/** The samples of a Prometheus text answer, by `name{labels}`; throws on a line that is neither a sample nor a comment. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][\w:]*(?:\{(?:[a-zA-Z_]\w*="(?:[^"\\]|\\.)*",?)*\})?) (-?[\d.e+-]+|\+Inf|NaN)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('GET /metrics', () => {
  let srv: TestServer;
  let sink: Sink;
  const metrics = async () => {
    const r = await fetch(`${srv.url}/metrics`);
    expect(r.status).toBe(200);
    return samples(await r.text());
  };

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  it("answers a client on this machine in Prometheus' text format, without CORS headers (not for web pages)", async () => {
    const r = await fetch(`${srv.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const m = samples(await r.text());
    for (const name of [
      'tel_event_loop_delay_seconds{quantile="0.5"}',
      'tel_event_loop_delay_seconds{quantile="0.99"}',
      'tel_event_loop_delay_max_seconds',
      'tel_outbox_deliveries{state="pending"}',
      'tel_delivery_breakers_open',
      'tel_jobs{status="running"}',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'tel_storage_fault{fault="full"}',
      'tel_storage_refused_requests_total',
    ]) {
      expect(m.has(name), name).toBe(true);
    }
    expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(10e6);
    expect(m.get('tel_storage_fault{fault="full"}')).toBe(0);
    expect(m.get('tel_delivery_breakers_open')).toBe(0);
    // a breaker a sender recorded open is counted
    srv.core.db.prepare("INSERT INTO delivery_breakers (target, state, failures, changed) VALUES ('http://192.0.2.1/x h1', 'open', 5, ?)").run(Date.now());
    try {
      expect((await metrics()).get('tel_delivery_breakers_open')).toBe(1);
    } finally {
      srv.core.db.prepare("DELETE FROM delivery_breakers WHERE target = 'http://192.0.2.1/x h1'").run();
    }
    expect((await fetch(`${srv.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('moves when work is done: requests by route and status, password hashes, deliveries, jobs', async () => {
    const account = srv.master.account_id;
    const token = srv.adminToken;
    const before = await metrics();
    const get = 'tel_http_requests_total{route="accounts/:account_id",method="GET",status="200"}';
    const missing = 'tel_http_requests_total{route="accounts/:account_id",method="GET",status="404"}';
    for (let i = 0; i < 3; i++) expect((await srv.request('GET', `/v2/accounts/${account}`, { token })).status).toBe(200);
    expect((await srv.request('GET', `/v2/accounts/${'0'.repeat(32)}`, { token })).status).toBe(404);
    expect((await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { first_name: 'Lab', last_name: 'User', username: 'counted', password: 'pw-counted' } })).status).toBe(201);
    const hook = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token, data: { name: 'm', uri: `${sink.url}/m`, hook: 'channel_create', format: 'json' } });
    expect(hook.status).toBe(201);
    expect((await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call' } })).status).toBe(201);
    await sink.waitFor(1, { filter: (r) => r.path === '/m' });
    const resource = await srv.request('PUT', `/v2/accounts/${account}/resources`, { token, data: { name: 'carrier', gateways: [{ server: '10.0.0.1' }] } });
    const job = await srv.request('PUT', `/v2/accounts/${account}/resources/jobs`, { token, data: { resource_id: resource.body.data.id, numbers: ['+14155550100'] } });
    expect(job.status).toBe(201);
    const after = await until(async () => {
      const m = await metrics();
      const delivered = m.get('tel_delivery_tries_total{kind="webhook",outcome="delivered"}') ?? 0;
      return delivered > (before.get('tel_delivery_tries_total{kind="webhook",outcome="delivered"}') ?? 0) && m.get('tel_jobs{status="complete"}') === 1 ? m : undefined;
    }, 'the delivery and the job to be counted');
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(delta(get)).toBe(3);
    expect(delta(missing)).toBe(1);
    expect(delta('tel_http_request_duration_seconds_count{route="accounts/:account_id",method="GET"}')).toBe(4);
    expect(delta('tel_http_requests_total{route="accounts/:account_id/users",method="PUT",status="201"}')).toBe(1);
    expect(delta('tel_password_hashes_total')).toBe(2);
    expect(delta('tel_jobs{status="complete"}')).toBe(1);
    // the loop was sampled all along
    expect(after.get('tel_event_loop_delay_seconds_count')!).toBeGreaterThan(before.get('tel_event_loop_delay_seconds_count')!);
  });

  const outside = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

  it.skipIf(!outside)('from another address: 401 without a token, 403 with one that is not a super-duper admin, 200 with one; anyone with --metrics', async () => {
    const tmp = tempDir();
    const core = openCore(join(tmp.dir, 'tel.db'));
    const init = initDatabase(core, { account: 'Master', username: 'admin', password: 'pw' });
    const guarded = await startApi(core, '0.0.0.0', 0);
    const second = openCore(join(tmp.dir, 'tel.db'));
    const open = await startApi(second, '0.0.0.0', 0, { openMetrics: true });
    try {
      const url = (api: { port: number }) => `http://${outside}:${api.port}`;
      const json = { 'Content-Type': 'application/json' };
      const login = await fetch(`${url(guarded)}/v2/api_auth`, { method: 'PUT', headers: json, body: JSON.stringify({ data: { api_key: init.api_key } }) });
      const superduper = ((await login.json()) as { auth_token: string }).auth_token;
      const child = await fetch(`${url(guarded)}/v2/accounts/${init.account_id}`, { method: 'PUT', headers: { ...json, 'X-Auth-Token': superduper }, body: JSON.stringify({ data: { name: 'Child' } }) });
      const childId = ((await child.json()) as { data: { id: string } }).data.id;
      const key = await fetch(`${url(guarded)}/v2/accounts/${childId}/api_key`, { headers: { 'X-Auth-Token': superduper } });
      const childKey = ((await key.json()) as { data: { api_key: string } }).data.api_key;
      const childLogin = await fetch(`${url(guarded)}/v2/api_auth`, { method: 'PUT', headers: json, body: JSON.stringify({ data: { api_key: childKey } }) });
      const admin = ((await childLogin.json()) as { auth_token: string }).auth_token;

      expect((await fetch(`${url(guarded)}/metrics`)).status).toBe(401);
      expect((await fetch(`${url(guarded)}/metrics`, { headers: { 'X-Auth-Token': admin } })).status).toBe(403);
      const allowed = await fetch(`${url(guarded)}/metrics`, { headers: { Authorization: `Bearer ${superduper}` } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('tel_event_loop_delay_seconds');
      expect((await fetch(`${url(open)}/metrics`)).status).toBe(200);
    } finally {
      await guarded.close();
      await open.close();
      closeCore(core);
      closeCore(second);
      tmp.cleanup();
    }
  });
});
