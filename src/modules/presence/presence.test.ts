import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { subscribe } from './service.js';

describe('presence: what phones watch, and the states set by hand', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  let user: string;
  let watcher: string;
  let watched: string;
  const base = () => `/v2/accounts/${account}`;
  const post = (path: string, data: Record<string, unknown>) => srv.request('POST', `${base()}${path}`, { token, data });
  const search = async (path = '') => (await srv.request('GET', `${base()}/presence${path}`, { token })).body.data.subscriptions;

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Busy Lamps');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    user = (await srv.request('PUT', `${base()}/users`, { token, data: { username: 'di', first_name: 'Di', last_name: 'Ba' } })).body.data.id;
    watcher = (await srv.request('PUT', `${base()}/devices`, { token, data: { name: 'reception', sip: { username: 'reception', password: 'pw-12345' } } })).body.data.id;
    watched = (await srv.request('PUT', `${base()}/devices`, { token, data: { name: 'di', owner_id: user, sip: { username: 'di-desk', password: 'pw-12345' } } })).body.data.id;
  });
  afterAll(() => srv.close());

  it("a phone's subscription is listed by presence id and package; a state set by hand reaches it as a NOTIFY", async () => {
    const r = await srv.request('PUT', `${base()}/simulations`, { token, data: { kind: 'subscribe', device_id: watcher, presentity: 'di-desk', expires: 600 } });
    expect(r.status).toBe(201);
    const callId = r.body.data.events[0].call_id;
    await srv.request('PUT', `${base()}/simulations`, { token, data: { kind: 'subscribe', device_id: watcher, presentity: '*3101' } });
    const all = await search();
    expect(Object.keys(all).sort()).toEqual(['*3101', 'di-desk']);
    expect(all['di-desk'].dialog[callId]).toMatchObject({ from: expect.stringMatching(/^reception@/), notify: { body: 'undefined', reply: 0, sequence: 0 }, version: 1 });
    expect(all['di-desk'].dialog[callId].expires).toBeLessThanOrEqual(600);
    expect(Object.keys(await search('/di-desk'))).toEqual(['di-desk']);
    const set = await post(`/devices/${watched}/presence`, { action: 'set', state: 'confirmed' });
    expect(set.status).toBe(202);
    expect(set.body.data).toBe('command sent');
    expect((await search('/di-desk'))['di-desk'].dialog[callId].notify).toEqual({ body: 'confirmed', reply: 200, sequence: 1 });
    expect((await post(`/users/${user}/presence`, { reset: true })).status).toBe(202);
    expect((await search('/di-desk'))['di-desk'].dialog[callId].notify).toEqual({ body: 'terminated', reply: 200, sequence: 2 });
    const ext = await post('/presence/*3101', { action: 'reset' });
    expect(ext.status).toBe(202);
    expect(ext.body.data).toBe('reset command sent for extension *3101');
  });

  it('commands are checked as Kazoo checks them', async () => {
    expect((await post(`/devices/${watched}/presence`, { action: 'dance' })).status).toBe(400);
    expect((await post(`/devices/${watched}/presence`, { action: 'set', state: 'busy' })).status).toBe(400);
    const loner = (await srv.request('PUT', `${base()}/users`, { token, data: { username: 'lo', first_name: 'Lo', last_name: 'Ne' } })).body.data.id;
    const nothing = await post(`/users/${loner}/presence`, { action: 'reset' });
    expect(nothing.status).toBe(200);
    expect(nothing.body.data).toBe('nothing to send command to');
    expect((await post('/presence', { action: 'reset' })).body.message).toBe('faulty request');
    expect((await srv.request('GET', `${base()}/presence/report-0123`, { token })).status).toBe(404);
    expect((await post('/devices/0123456789abcdef0123456789abcdef/presence', { action: 'reset' })).status).toBe(404);
  });
});

describe('presence subscriptions that expired', () => {
  it('are removed when the account subscribes again', () => {
    const tmp = tempDir('tel-presence-');
    const core = openCore(join(tmp.dir, 'presence.db'));
    try {
      const rows = () => (core.db.prepare('SELECT call_id FROM presence_subscriptions ORDER BY call_id').all() as { call_id: string }[]).map((r) => r.call_id);
      const sub = (callId: string, expiresMs: number) => ({ presentity: '100', package: 'dialog', callId, watcher: 'w@r', expiresMs });
      subscribe(core, 'a', sub('1', 2_000), 1_000);
      subscribe(core, 'a', sub('2', 10_000), 1_000);
      subscribe(core, 'b', sub('3', 2_000), 1_000);
      subscribe(core, 'a', sub('4', 10_000), 5_000);
      // the account's expired one went; another account's waits for its own
      expect(rows()).toEqual(['2', '3', '4']);
    } finally {
      closeCore(core);
      tmp.cleanup();
    }
  });
});
