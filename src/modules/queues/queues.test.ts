import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { nowGregorian } from '../../util/time.js';

const FIELDS = [
  'account_id',
  'agent_call_id',
  'agent_id',
  'agent_username',
  'call_state',
  'caller_id_name',
  'caller_id_number',
  'member_call_id',
  'now',
  'queue_id',
];

describe('queues and their notifications, delivered to a real local sink', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let agent: string;
  let n = 0;
  const token = () => srv.adminToken;
  const route = () => `/q${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;

  async function queue(notifications?: Record<string, unknown>): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${account}/queues`, { token: token(), data: { name: `Queue ${n}`, ...(notifications ? { notifications } : {}) } });
    expect(r.status).toBe(201);
    return r.body.data.id;
  }

  async function queueCall(queueId: string, extra: Record<string, unknown> = {}) {
    const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, {
      token: token(),
      data: { kind: 'queue_call', queue_id: queueId, agent_id: agent, caller_id_name: 'Jane Doe', caller_id_number: '+14155550199', ...extra },
    });
    expect(r.status).toBe(201);
    return r.body.data.events as Record<string, any>[];
  }

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    const cfg = await srv.request('POST', '/v2/system_configs/webhooks', {
      token: token(),
      data: { default: { retry_base_delay_ms: 20, retry_max_delay_ms: 100, request_timeout_ms: 1000 } },
    });
    expect(cfg.status).toBe(200);
    account = (await createSubAccount(srv, srv.master.account_id, 'Call Center')).id;
    const user = await srv.request('PUT', `/v2/accounts/${account}/users`, { token: token(), data: { username: 'agent.smith', password: 'pw', first_name: 'F', last_name: 'L' } });
    agent = user.body.data.id;
    sink.respond((r) => (r.path.startsWith('/flaky') && sink.requests.filter((x) => x.path === r.path).length === 1 ? { status: 503 } : { status: 200 }));
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('queues are documents carrying notifications; method defaults to get; URLs and method are checked', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${account}/queues`, {
      token: token(),
      data: { name: 'Support', notifications: { pickup: 'http://127.0.0.1:9/p' } },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.notifications).toEqual({ pickup: 'http://127.0.0.1:9/p', method: 'get' });
    const bad = await srv.request('PUT', `/v2/accounts/${account}/queues`, {
      token: token(),
      data: { name: 'Bad', notifications: { hangup: 'not a url', method: 'put' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data['notifications.hangup'].wrong_format).toBeTruthy();
    expect(bad.body.data['notifications.method'].enum).toBeTruthy();
    const list = await srv.request('GET', `/v2/accounts/${account}/queues`, { token: token() });
    expect(list.body.data.find((q: { id: string }) => q.id === r.body.data.id)).toMatchObject({ name: 'Support' });
  });

  it('get: pickup then hangup as query strings with every field, appended with & to a URL that has a query', async () => {
    const [p, h] = [route(), route()];
    const id = await queue({ pickup: `${sink.url}${p}?secret=abc`, hangup: `${sink.url}${h}` });
    const before = nowGregorian();
    const events = await queueCall(id);
    expect(events.map((e) => e.event)).toEqual(['pickup', 'hangup']);
    const [pickup] = await sink.waitFor(1, { filter: on(p) });
    const [hangup] = await sink.waitFor(1, { filter: on(h) });
    expect(pickup.method).toBe('GET');
    expect(pickup.url).toMatch(new RegExp(`^${p}\\?secret=abc&`));
    expect(pickup.query.get('secret')).toBe('abc');
    for (const f of FIELDS) expect(pickup.query.get(f), f).not.toBeNull();
    expect(Object.fromEntries(pickup.query)).toMatchObject({
      account_id: account,
      agent_id: agent,
      agent_username: 'agent.smith',
      call_state: 'pickup',
      caller_id_name: 'Jane Doe',
      caller_id_number: '+14155550199',
      member_call_id: events[0].member_call_id,
      agent_call_id: events[0].agent_call_id,
      queue_id: id,
    });
    expect(Number(pickup.query.get('now'))).toBeGreaterThanOrEqual(before);
    expect(Number(pickup.query.get('now'))).toBeLessThanOrEqual(nowGregorian());
    expect(hangup.method).toBe('GET');
    expect(hangup.query.get('call_state')).toBe('hangup');
    expect(hangup.query.get('member_call_id')).toBe(pickup.query.get('member_call_id'));
  });

  it('post: a JSON body with every field; `all` serves the states without their own URL', async () => {
    const [p, all] = [route(), route()];
    const id = await queue({ pickup: `${sink.url}${p}`, all: `${sink.url}${all}`, method: 'post' });
    const events = await queueCall(id, { member_call_id: 'member-1', agent_call_id: 'agent-leg-1' });
    expect(events[0].notification).toMatchObject({ url: `${sink.url}${p}`, method: 'post' });
    expect(events[1].notification).toMatchObject({ url: `${sink.url}${all}`, method: 'post' });
    const [pickup] = await sink.waitFor(1, { filter: on(p) });
    const [hangup] = await sink.waitFor(1, { filter: on(all) });
    for (const req of [pickup, hangup]) {
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json');
      expect(Object.keys(JSON.parse(req.body)).sort()).toEqual(FIELDS);
    }
    expect(JSON.parse(pickup.body)).toMatchObject({ call_state: 'pickup', member_call_id: 'member-1', agent_call_id: 'agent-leg-1', agent_username: 'agent.smith' });
    expect(JSON.parse(hangup.body).call_state).toBe('hangup');
    expect(sink.requests.filter(on(all))).toHaveLength(1);
  });

  it('a failed send is retried, and each try is recorded and visible as attempts of the queue', async () => {
    const p = `/flaky${route()}`;
    const id = await queue({ pickup: `${sink.url}${p}`, method: 'post' });
    await queueCall(id);
    const tries = await sink.waitFor(2, { filter: on(p) });
    expect(tries[0].body).toBe(tries[1].body);
    expect(tries[0].headers['x-event-id']).toBe(tries[1].headers['x-event-id']);
    let attempts: any;
    for (let i = 0; i < 100; i++) {
      attempts = await srv.request('GET', `/v2/accounts/${account}/queues/${id}/notifications`, { token: token() });
      if (attempts.body.data.length >= 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(attempts.status).toBe(200);
    const [second, first] = attempts.body.data;
    expect(first).toMatchObject({ hook_id: id, hook_event: 'pickup', result: 'failure', resp_status_code: '503', method: 'post', retries_left: 2 });
    expect(second).toMatchObject({ hook_id: id, hook_event: 'pickup', result: 'success', resp_status_code: '200' });
    expect(JSON.parse(second.req_body).call_state).toBe('pickup');
    // the listing takes the same paging and time filters as webhook attempts
    const url = `/v2/accounts/${account}/queues/${id}/notifications`;
    const paged = await srv.request('GET', `${url}?page_size=1`, { token: token() });
    expect(paged.body.data.map((a: { id: number }) => a.id)).toEqual([second.id]);
    const next = await srv.request('GET', `${url}?page_size=1&start_key=${paged.body.next_start_key}`, { token: token() });
    expect(next.body.data.map((a: { id: number }) => a.id)).toEqual([first.id]);
    const later = await srv.request('GET', `${url}?created_from=${second.timestamp + 10}`, { token: token() });
    expect(later.status).toBe(200);
    expect(later.body.data).toEqual([]);
    const upTo = await srv.request('GET', `${url}?created_from=${first.timestamp}&created_to=${second.timestamp}`, { token: token() });
    expect(upTo.body.data).toHaveLength(2);
    const backwards = await srv.request('GET', `${url}?created_from=${second.timestamp + 1}&created_to=${first.timestamp}`, { token: token() });
    expect(backwards.status).toBe(400);
    expect(backwards.body.data).toEqual({
      created_from: { date_range: { message: `created_to ${first.timestamp} is prior to created_from ${second.timestamp + 1}`, cause: second.timestamp + 1 } },
    });
  });

  it('a queue without notifications emits the events and sends nothing', async () => {
    const id = await queue();
    const seen = sink.requests.length;
    const events = await queueCall(id);
    expect(events.map((e) => e.event)).toEqual(['pickup', 'hangup']);
    expect(events[0].notification).toBeUndefined();
    expect(events[0]).toMatchObject({ call_state: 'pickup', queue_id: id, agent_username: 'agent.smith' });
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.requests.length).toBe(seen);
  });

  it('an unknown queue or agent is a 404 and queues nothing; missing fields are a 400', async () => {
    const id = await queue({ all: `${sink.url}/never` });
    const ghost = 'e'.repeat(32);
    const noAgent = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token: token(), data: { kind: 'queue_call', queue_id: id, agent_id: ghost } });
    expect(noAgent.status).toBe(404);
    expect(noAgent.body.data.cause).toBe(ghost);
    const noQueue = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token: token(), data: { kind: 'queue_call', queue_id: ghost, agent_id: agent } });
    expect(noQueue.status).toBe(404);
    const missing = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token: token(), data: { kind: 'queue_call' } });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.data).sort()).toEqual(['agent_id', 'queue_id']);
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.requests.filter(on('/never'))).toHaveLength(0);
  });
});
