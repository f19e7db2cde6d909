import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { reenableHook } from './service.js';

describe('auto-disable and re-enable', () => {
  let srv: TestServer;
  let sink: Sink;
  let token: string;
  let reseller: string;
  let customer: string;
  let n = 0;
  const route = () => `/d${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;

  async function hook(accountId: string, data: Record<string, unknown>): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${accountId}/webhooks`, { token, data: { name: `dead ${n}`, hook: 'channel_create', ...data } });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  }
  const get = (accountId: string, id: string) => srv.request('GET', `/v2/accounts/${accountId}/webhooks/${id}`, { token });
  const call = (accountId: string) => srv.request('PUT', `/v2/accounts/${accountId}/simulations`, { token, data: { kind: 'call', answer: false } });

  async function until(check: () => Promise<boolean>, ms = 4000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('condition not reached in time');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const failedDeliveries = async (accountId: string, id: string) => {
    const a = await srv.request('GET', `/v2/accounts/${accountId}/webhooks/${id}/attempts?paginate=false`, { token });
    return a.body.data.filter((x: { retries_left: number; result: string }) => x.result === 'failure' && x.retries_left === 0).length;
  };

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    sink.respond(() => ({ status: 500 }));
    token = srv.adminToken;
    await srv.request('POST', '/v2/system_configs/webhooks', {
      token,
      data: { default: { retry_base_delay_ms: 5, retry_max_delay_ms: 20, attempt_failure_count: 2, attempt_failure_expiry_ms: 60_000 } },
    });
    reseller = (await createSubAccount(srv, srv.master.account_id, 'Reseller')).id;
    customer = (await createSubAccount(srv, reseller, 'Customer')).id;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('counts one failure per delivery (not per try) and disables at attempt_failure_count, with a disable_reason', async () => {
    const path = route();
    const id = await hook(reseller, { uri: `${sink.url}${path}`, retries: 2 });
    await call(reseller);
    await sink.waitFor(3, { filter: on(path) });
    await until(async () => (await failedDeliveries(reseller, id)) === 1);
    // three failed tries, but one failed delivery: still enabled
    expect((await get(reseller, id)).body.data.enabled).toBe(true);
    await call(reseller);
    await until(async () => (await get(reseller, id)).body.data.enabled === false);
    const doc = (await get(reseller, id)).body.data;
    expect(doc.disable_reason).toMatch(/too many failed deliveries: 2 within 60000 ms \(last: 500 bad response code\)/);
    const list = await srv.request('GET', `/v2/accounts/${reseller}/webhooks`, { token });
    expect(list.body.data.find((h: { id: string }) => h.id === id)).toMatchObject({ enabled: false, disable_reason: doc.disable_reason });
    // disabled: no more deliveries
    const before = sink.requests.filter(on(path)).length;
    await call(reseller);
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.requests.filter(on(path)).length).toBe(before);
  });

  it('an automatic disable sends a webhook_disabled notification to notifications hooks', async () => {
    const notified = route();
    sink.respond((r) => ({ status: r.path === notified ? 200 : 500 }));
    await hook(reseller, { uri: `${sink.url}${notified}`, hook: 'notifications', format: 'json', custom_data: { type: 'webhook_disabled' } });
    const id = await hook(reseller, { uri: `${sink.url}${route()}`, retries: 0, hook: 'parking' });
    for (let i = 0; i < 2; i++) await srv.request('PUT', `/v2/accounts/${reseller}/simulations`, { token, data: { kind: 'parking', slot: i + 1 } });
    const [req] = await sink.waitFor(1, { filter: on(notified) });
    expect(JSON.parse(req.body)).toMatchObject({ event_name: 'webhook_disabled', hook_id: id, account_id: reseller, event_category: 'notification', app_name: 'tel' });
    expect(JSON.parse(req.body).msg_id).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.parse(req.body).disable_reason).toMatch(/too many failed deliveries/);
    sink.respond(() => ({ status: 500 }));
  });

  it('failures counted after the hook is off send no second notification', async () => {
    const notified = route();
    const failing = route();
    // four deliveries in flight at once, all answered 500 together: the second disables the hook,
    // the third and fourth count against a hook already off
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    sink.respond(async (r) => {
      if (r.path === notified) return { status: 200 };
      if (r.path === failing) await held;
      return { status: 500 };
    });
    await hook(reseller, { uri: `${sink.url}${notified}`, hook: 'notifications', format: 'json', custom_data: { type: 'webhook_disabled' } });
    const id = await hook(reseller, { uri: `${sink.url}${failing}`, retries: 0 });
    for (let i = 0; i < 4; i++) expect((await call(reseller)).status).toBe(201);
    await sink.waitFor(4, { filter: on(failing) });
    release();
    await until(async () => (await failedDeliveries(reseller, id)) === 4);
    const [req] = await sink.waitFor(1, { filter: on(notified) });
    expect(JSON.parse(req.body)).toMatchObject({ event_name: 'webhook_disabled', hook_id: id });
    await new Promise((r) => setTimeout(r, 150));
    expect(sink.requests.filter(on(notified))).toHaveLength(1);
    sink.respond(() => ({ status: 500 }));
  });

  it("a hook whose endpoint refuses connections is disabled with the client error as its last failure", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    const id = await hook(reseller, { uri: `http://127.0.0.1:${port}/nobody`, retries: 0 });
    await call(reseller);
    await call(reseller);
    await until(async () => (await get(reseller, id)).body.data.enabled === false);
    expect((await get(reseller, id)).body.data.disable_reason).toMatch(/^too many failed deliveries: 2 within 60000 ms \(last: econnrefused\)$/);
  });

  it('only failures inside attempt_failure_expiry_ms count (account override of the window)', async () => {
    await srv.request('POST', `/v2/accounts/${customer}/configs/webhooks`, { token, data: { attempt_failure_expiry_ms: 100 } });
    const path = route();
    const id = await hook(customer, { uri: `${sink.url}${path}`, retries: 0 });
    await call(customer);
    await until(async () => (await failedDeliveries(customer, id)) === 1);
    await new Promise((r) => setTimeout(r, 150));
    await call(customer);
    await until(async () => (await failedDeliveries(customer, id)) === 2);
    expect((await get(customer, id)).body.data.enabled).toBe(true);
    await srv.request('DELETE', `/v2/accounts/${customer}/configs/webhooks`, { token });
  });

  it('PATCH enabled clears the reason and the failure count', async () => {
    const path = route();
    const id = await hook(reseller, { uri: `${sink.url}${path}`, retries: 0 });
    await call(reseller);
    await call(reseller);
    await until(async () => (await get(reseller, id)).body.data.enabled === false);
    const patched = await srv.request('PATCH', `/v2/accounts/${reseller}/webhooks/${id}`, { token, data: { enabled: true } });
    expect(patched.body.data.enabled).toBe(true);
    expect(patched.body.data).not.toHaveProperty('disable_reason');
    // the count starts again: one more failure does not disable it
    await call(reseller);
    await until(async () => (await failedDeliveries(reseller, id)) === 3);
    expect((await get(reseller, id)).body.data.enabled).toBe(true);
  });

  it('bulk re-enable on descendants touches auto-disabled hooks only, and answers "hooks updated"', async () => {
    const auto1 = await hook(reseller, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_destroy' });
    const auto2 = await hook(customer, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_destroy' });
    const manual = await hook(customer, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_destroy', enabled: false });
    for (let i = 0; i < 2; i++) {
      await call(reseller);
      await call(customer);
    }
    await until(async () => (await get(reseller, auto1)).body.data.enabled === false && (await get(customer, auto2)).body.data.enabled === false);
    // the flag in the query, the request carrying no data at all
    const accountOnly = await srv.request('PATCH', `/v2/accounts/${customer}/webhooks?re-enable=true`, { token });
    expect(accountOnly.body.data).toBe('hooks updated');
    expect((await get(customer, auto2)).body.data.enabled).toBe(true);
    expect((await get(reseller, auto1)).body.data.enabled).toBe(false);
    await srv.request('PATCH', `/v2/accounts/${customer}/webhooks/${auto2}`, { token, data: { enabled: false } });
    // an auto-disabled hook in the descendant, which only the descendants variant reaches
    const auto3 = await hook(customer, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_destroy' });
    for (let i = 0; i < 2; i++) await call(customer);
    await until(async () => (await get(customer, auto3)).body.data.enabled === false);
    const notDescendants = await srv.request('PATCH', `/v2/accounts/${reseller}/webhooks`, { token, data: { 're-enable': true } });
    expect(notDescendants.body.data).toBe('hooks updated');
    expect((await get(reseller, auto1)).body.data.enabled).toBe(true);
    expect((await get(customer, auto3)).body.data.enabled).toBe(false);
    for (let i = 0; i < 2; i++) await call(reseller);
    await until(async () => (await get(reseller, auto1)).body.data.enabled === false);
    // auto2 is now manually disabled: bulk re-enable must leave it (and `manual`) alone
    const r = await srv.request('PATCH', `/v2/accounts/${reseller}/descendants/webhooks`, { token, data: { 're-enable': true } });
    expect(r.status).toBe(200);
    expect(r.body.data).toBe('hooks updated');
    expect((await get(reseller, auto1)).body.data).toMatchObject({ enabled: true });
    expect((await get(reseller, auto1)).body.data).not.toHaveProperty('disable_reason');
    expect((await get(customer, auto3)).body.data).toMatchObject({ enabled: true });
    expect((await get(customer, auto3)).body.data).not.toHaveProperty('disable_reason');
    expect((await get(customer, auto2)).body.data.enabled).toBe(false);
    expect((await get(customer, manual)).body.data.enabled).toBe(false);
  });

  it('bulk re-enable on descendants reaches every generation below, not the children only', async () => {
    const grandchild = (await createSubAccount(srv, customer, 'Grandchild')).id;
    const greatGrandchild = (await createSubAccount(srv, grandchild, 'Great-grandchild')).id;
    const deep = [grandchild, greatGrandchild];
    const ids = await Promise.all(deep.map((a) => hook(a, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_destroy' })));
    for (let i = 0; i < 2; i++) for (const a of deep) await call(a);
    await until(async () => (await get(grandchild, ids[0])).body.data.enabled === false && (await get(greatGrandchild, ids[1])).body.data.enabled === false);
    const r = await srv.request('PATCH', `/v2/accounts/${reseller}/descendants/webhooks`, { token, data: { 're-enable': true } });
    expect(r.status).toBe(200);
    expect((await get(grandchild, ids[0])).body.data).toMatchObject({ enabled: true });
    expect((await get(greatGrandchild, ids[1])).body.data).toMatchObject({ enabled: true });
    expect((await get(greatGrandchild, ids[1])).body.data).not.toHaveProperty('disable_reason');
  });

  it('reenableHook (the service call a TUI key uses) turns an auto-disabled hook back on', async () => {
    const id = await hook(customer, { uri: `${sink.url}${route()}`, retries: 0, hook: 'channel_answer' });
    for (let i = 0; i < 2; i++) await srv.request('PUT', `/v2/accounts/${customer}/simulations`, { token, data: { kind: 'call' } });
    await until(async () => (await get(customer, id)).body.data.enabled === false);
    const h = reenableHook(srv.core, customer, id);
    expect(h.doc.enabled).toBe(true);
    expect(h.disableReason).toBeNull();
    expect((await get(customer, id)).body.data).not.toHaveProperty('disable_reason');
  });
});
