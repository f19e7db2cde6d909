import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { runTel } from '../../../test/helpers/cli.js';

describe('event sources and hook matching', () => {
  let srv: TestServer;
  let sink: Sink;
  let token: string;
  let parent: string;
  let child: string;
  let n = 0;
  const route = () => `/e${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;
  const json = (r: SinkRequest) => JSON.parse(r.body) as Record<string, unknown>;
  /** The cluster id this database was given when it was made. */
  const ownCluster = () => (srv.core.db.prepare("SELECT value FROM meta WHERE key = 'cluster_id'").get() as { value: string }).value;

  async function hook(accountId: string, data: Record<string, unknown>): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${accountId}/webhooks`, { token, data: { name: 'h', hook: 'channel_create', format: 'json', ...data } });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  }
  const simulate = (accountId: string, data: Record<string, unknown>) =>
    srv.request('PUT', `/v2/accounts/${accountId}/simulations`, { token, data });

  /** Waits a moment and answers what arrived (for "nothing more arrives" checks). */
  async function settle(path: string, ms = 150): Promise<SinkRequest[]> {
    await new Promise((r) => setTimeout(r, ms));
    return sink.requests.filter(on(path));
  }

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    token = srv.adminToken;
    parent = (await createSubAccount(srv, srv.master.account_id, 'Parent Co')).id;
    child = (await createSubAccount(srv, parent, 'Child Co')).id;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('a simulated call emits create, answer, bridge, destroy with a shared call_id and answers them in order', async () => {
    const path = route();
    for (const h of ['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy']) await hook(child, { uri: `${sink.url}${path}`, hook: h });
    const r = await simulate(child, { kind: 'call', direction: 'outbound', caller_id_number: '+15551230000', callee_id_number: '+15559870000', hangup_cause: 'USER_BUSY' });
    expect(r.status).toBe(201);
    // no revision: as Kazoo's answer to a write that saved no document
    expect(Object.keys(r.body).sort()).toEqual(['auth_token', 'data', 'node', 'request_id', 'status', 'timestamp', 'version']);
    const events = r.body.data.events;
    expect(events.map((e: { event: string }) => e.event)).toEqual(['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy']);
    expect(new Set(events.map((e: { call_id: string }) => e.call_id)).size).toBe(1);
    expect(events[2].other_leg_call_id).toBeTruthy();
    expect(events[3]).toMatchObject({ hangup_cause: 'USER_BUSY', hangup_code: 'sip:486', other_leg_call_id: events[2].other_leg_call_id, call_direction: 'outbound' });
    const reqs = await sink.waitFor(4, { filter: on(path) });
    const got = reqs.map(json).sort((a, b) => String(a.hook_event).localeCompare(String(b.hook_event)));
    expect(got.map((p) => p.hook_event)).toEqual(['channel_answer', 'channel_bridge', 'channel_create', 'channel_destroy']);
    for (const p of got) expect(p).toMatchObject({ call_id: events[0].call_id, account_id: child, caller_id_number: '+15551230000', callee_id_number: '+15559870000' });
    const unanswered = await simulate(child, { kind: 'call', answer: false });
    expect(unanswered.body.data.events.map((e: { event: string }) => e.event)).toEqual(['channel_create', 'channel_destroy']);
    const badKind = await simulate(child, { kind: 'call', direction: 'sideways' });
    expect(badKind.status).toBe(400);
    expect(badKind.body.data.direction.enum).toBeTruthy();
    // names every JavaScript object has are not simulation kinds
    for (const kind of ['toString', 'constructor', '__proto__']) {
      const r = await simulate(child, { kind });
      expect(r.status, kind).toBe(400);
      expect(r.body.data.kind.enum.target, kind).toEqual(['call', 'sms', 'mms', 'queue_call', 'parking', 'voicemail', 'notification', 'object', 'hangup', 'subscribe', 'fax', 'registration']);
    }
  });

  it('parking emits the parking sample fields', async () => {
    const path = route();
    await hook(child, { uri: `${sink.url}${path}`, hook: 'parking' });
    const r = await simulate(child, { kind: 'parking', slot: 7, caller_id_number: '+15550007777', outcome: 'retrieved' });
    expect(r.body.data.events.map((e: { event_name: string }) => e.event_name)).toEqual(['PARK_PARKED', 'PARK_RETRIEVED']);
    const reqs = await sink.waitFor(2, { filter: on(path) });
    const first = reqs.map(json).find((p) => p.event_name === 'PARK_PARKED')!;
    expect(Object.keys(first).sort()).toEqual(
      ['account_id', 'call_id', 'callee_id_name', 'callee_id_number', 'caller_id_name', 'caller_id_number', 'cluster_id', 'event_name', 'parking_slot'].sort(),
    );
    expect(first).toMatchObject({ parking_slot: 7, caller_id_number: '+15550007777', account_id: child });
  });

  it('modifiers: every pair must be present and equal (AND); a list means one of', async () => {
    const both = route();
    const list = route();
    await hook(child, { uri: `${sink.url}${both}`, modifiers: { call_direction: 'inbound', caller_id_number: '+15550000001' } });
    await hook(child, { uri: `${sink.url}${list}`, modifiers: { caller_id_number: ['+15550000002', '+15550000003'], no_such_field: 'x' } });
    const listOnly = route();
    await hook(child, { uri: `${sink.url}${listOnly}`, modifiers: { caller_id_number: ['+15550000002', '+15550000003'] } });
    await simulate(child, { kind: 'call', direction: 'inbound', caller_id_number: '+15550000001', answer: false });
    await simulate(child, { kind: 'call', direction: 'outbound', caller_id_number: '+15550000001', answer: false });
    await simulate(child, { kind: 'call', caller_id_number: '+15550000003', answer: false });
    await simulate(child, { kind: 'call', caller_id_number: '+15550000009', answer: false });
    const bothReqs = await settle(both);
    expect(bothReqs.map((r) => [json(r).call_direction, json(r).caller_id_number])).toEqual([['inbound', '+15550000001']]);
    expect(await settle(list, 0)).toHaveLength(0); // a pair missing from the payload never matches
    expect((await settle(listOnly, 0)).map((r) => json(r).caller_id_number)).toEqual(['+15550000003']);
  });

  it('include_subaccounts sends descendants events to the parent hook; include_internal_legs false drops loopback legs', async () => {
    const withSubs = route();
    const ownOnly = route();
    const noInternal = route();
    await hook(parent, { uri: `${sink.url}${withSubs}`, include_subaccounts: true });
    await hook(parent, { uri: `${sink.url}${ownOnly}` });
    await hook(child, { uri: `${sink.url}${noInternal}`, include_internal_legs: false });
    await simulate(child, { kind: 'call', answer: false, caller_id_number: '+15550000100' });
    await simulate(child, { kind: 'call', answer: false, internal: true, caller_id_number: '+15550000200' });
    const subs = await sink.waitFor(2, { filter: on(withSubs) });
    expect(subs.every((r) => r.headers['x-account-id'] === parent && json(r).account_id === child)).toBe(true);
    expect(await settle(ownOnly)).toHaveLength(0);
    const noInt = await settle(noInternal, 0);
    expect(noInt.map((r) => json(r).caller_id_number)).toEqual(['+15550000100']);
    await simulate(parent, { kind: 'call', answer: false });
    await sink.waitFor(1, { filter: on(ownOnly) });
  });

  it('object hooks: documents, users and accounts through the API; action/type/types/doc_updated filters; missing means all', async () => {
    const all = route();
    const edited = route();
    const types = route();
    const custom = route();
    await hook(child, { uri: `${sink.url}${all}`, hook: 'object' });
    await hook(child, { uri: `${sink.url}${edited}`, hook: 'object', modifiers: { action: 'doc_updated' } });
    await hook(child, { uri: `${sink.url}${types}`, hook: 'object', modifiers: { types: ['vmbox', 'media'] } });
    await hook(child, { uri: `${sink.url}${custom}`, hook: 'object', custom_data: { type: 'device', action: 'doc_deleted' } });
    const base = `/v2/accounts/${child}`;
    const dev = await srv.request('PUT', `${base}/devices`, { token, data: { name: 'Desk' } });
    await srv.request('POST', `${base}/devices/${dev.body.data.id}`, { token, data: { name: 'Desk 2' } });
    await srv.request('DELETE', `${base}/devices/${dev.body.data.id}`, { token });
    await srv.request('PUT', `${base}/vmboxes`, { token, data: { name: 'Box', mailbox: '100' } });
    await srv.request('PUT', `${base}/media`, { token, data: { name: 'Greeting' } });
    await srv.request('PUT', `${base}/callflows`, { token, data: { name: 'Main', numbers: ['1000'] } });
    await srv.request('PUT', `${base}/faxboxes`, { token, data: { name: 'Fax' } });
    await srv.request('PUT', `${base}/users`, { token, data: { username: 'ann', password: 'pw-123456', first_name: 'Ann', last_name: 'Lee' } });
    await srv.request('POST', base, { token, data: { name: 'Child Co Renamed' } });
    const allReqs = await sink.waitFor(9, { filter: on(all) });
    const seen = allReqs.map((r) => `${json(r).type}:${json(r).action}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'device:doc_created',
        'device:doc_edited',
        'device:doc_deleted',
        'vmbox:doc_created',
        'media:doc_created',
        'callflow:doc_created',
        'faxbox:doc_created',
        'user:doc_created',
        'account:doc_edited',
      ]),
    );
    expect(json(allReqs[0])).toEqual({ id: dev.body.data.id, account_id: child, action: 'doc_created', type: 'device', cluster_id: ownCluster() });
    expect((await settle(edited, 0)).map((r) => `${json(r).type}:${json(r).action}`).sort()).toEqual(['account:doc_edited', 'device:doc_edited']);
    expect((await settle(types, 0)).map((r) => json(r).type).sort()).toEqual(['media', 'vmbox']);
    const customReqs = await settle(custom, 0);
    expect(customReqs.map((r) => `${json(r).type}:${json(r).action}`)).toEqual(['device:doc_deleted']);
  });

  it("deleting a sub-account reaches its parent's hooks that include subaccounts", async () => {
    const path = route();
    await hook(parent, { uri: `${sink.url}${path}`, hook: 'object', include_subaccounts: true, modifiers: { type: 'account', action: 'doc_deleted' } });
    const doomed = await createSubAccount(srv, parent, 'Short Lived');
    expect((await srv.request('DELETE', `/v2/accounts/${doomed.id}`, { token })).status).toBe(200);
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(json(req)).toEqual({ id: doomed.id, account_id: doomed.id, action: 'doc_deleted', type: 'account', cluster_id: ownCluster() });
  });

  it('a hook matches by its modifiers as last edited', async () => {
    const path = route();
    const id = await hook(child, { uri: `${sink.url}${path}`, hook: 'object', modifiers: { type: 'vmbox' } });
    const device = async (name: string) => expect((await srv.request('PUT', `/v2/accounts/${child}/devices`, { token, data: { name } })).status).toBe(201);
    await device('Before');
    const edited = await srv.request('PATCH', `/v2/accounts/${child}/webhooks/${id}`, { token, data: { modifiers: { type: 'device' } } });
    expect(edited.status, edited.text).toBe(200);
    await device('After');
    const [req] = await sink.waitFor(1, { filter: on(path) });
    expect(json(req)).toMatchObject({ type: 'device', action: 'doc_created' });
    expect(await settle(path)).toHaveLength(1);
    await srv.request('PATCH', `/v2/accounts/${child}/webhooks/${id}`, { token, data: { modifiers: { type: 'media' } } });
    await device('Again');
    expect(await settle(path)).toHaveLength(1);
  });

  it("payloads carry the database's own cluster id, or the `cluster` category's when one is set", async () => {
    const path = route();
    await hook(child, { uri: `${sink.url}${path}`, hook: 'channel_create' });
    const own = ownCluster();
    expect(own).toMatch(/^[0-9a-f]{32}$/);
    const clusterOf = async (count: number) => {
      expect((await simulate(child, { kind: 'call', answer: false })).status).toBe(201);
      return json((await sink.waitFor(count, { filter: on(path) }))[count - 1]).cluster_id;
    };
    expect(await clusterOf(1)).toBe(own);
    const set = (cluster_id: string) => srv.request('POST', '/v2/system_configs/cluster', { token, data: { default: { cluster_id } } });
    expect((await set('lab-cluster-7')).status).toBe(200);
    expect(await clusterOf(2)).toBe('lab-cluster-7');
    expect((await set('')).status).toBe(200);
    expect(await clusterOf(3)).toBe(own);
    await srv.request('DELETE', '/v2/system_configs/cluster', { token });
  });

  it('events made by the offline CLI on the same file are delivered by the running server', async () => {
    const path = route();
    await hook(child, { uri: `${sink.url}${path}`, hook: 'channel_destroy' });
    const cli = await runTel(['simulate', 'call', '--account', child, '--db', srv.dbFile, '--no-answer', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const events = JSON.parse(cli.stdout).events;
    const [req] = await sink.waitFor(1, { filter: on(path), timeoutMs: 3000 });
    expect(json(req).call_id).toBe(events[events.length - 1].call_id);
  });
});
