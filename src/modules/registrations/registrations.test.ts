import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { withoutWaiting } from '../../store/db.js';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';
import { runTel } from '../../../test/helpers/cli.js';
import { insertDoc } from '../documents/store.js';
import { register } from './service.js';
import { sweepLapsed } from './service.js';

// Registrations made by the `registration` simulation, answered as Kazoo's cb_registrations
// (lookup_regs/1 through normalize_registration/1: the registrar's to_props/1 without the account's
// id and db, with contact_ip and contact_port) and cb_devices load_device_status/1; the register and
// deregister notifications as ecallmgr_registrar sends them (maybe_send_register_notice/1 on a first
// registration, maybe_send_deregister_notice/1 on an unregister or an expiry unless suppressed).

describe('registrations', () => {
  let srv: TestServer;
  let sink: Sink;
  let base: string;
  let token: string;
  let n = 0;
  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Phones Co');
    base = `/v2/accounts/${sub.id}`;
    token = srv.adminToken;
    const hook = await srv.request('PUT', `${base}/webhooks`, { token, data: { name: 'Regs', uri: `${sink.url}/regs`, hook: 'notifications', http_verb: 'post' } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  async function device(extra: Record<string, unknown> = {}): Promise<{ id: string; username: string }> {
    const username = `desk${++n}`;
    const r = await srv.request('PUT', `${base}/devices`, { token, data: { name: `Desk ${n}`, sip: { username, password: 'Secret-sip-1' }, ...extra } });
    return { id: r.body.data.id, username };
  }
  const simulate = (data: Record<string, unknown>) => srv.request('PUT', `${base}/simulations`, { token, data: { kind: 'registration', ...data } });
  const status = async () => (await srv.request('GET', `${base}/devices/status`, { token })).body.data;
  const registrations = async () => (await srv.request('GET', `${base}/registrations`, { token })).body.data;

  it('a registration is listed with the registrar fields, counted, and makes its device registered; the first notifies register', async () => {
    expect(await status()).toEqual([]);
    const d = await device({ owner_id: undefined });
    const r = await simulate({ device_id: d.id, expires: 120, user_agent: 'Yealink SIP-T46U', network_ip: '198.51.100.7' });
    expect(r.status).toBe(201);
    expect(r.body.data.events.map((e: { event: string }) => e.event)).toEqual(['registration', 'notifications']);
    expect(r.body.data.events[1]).toMatchObject({ event_name: 'register', username: d.username, expires: 120, network_ip: '198.51.100.7' });
    const [row] = await registrations();
    expect(Object.keys(row).sort()).toEqual(
      [
        'username', 'realm', 'user_agent', 'call_id', 'from_user', 'from_host', 'to_user', 'to_host', 'network_ip', 'network_port',
        'proxy_ip', 'proxy_port', 'proxy_protocol',
        'event_timestamp', 'contact', 'original_contact', 'expires', 'account_realm', 'account_name', 'authorizing_id', 'authorizing_type',
        'suppress_unregister_notify', 'register_overwrite_notify', 'first_registration', 'initial_registration', 'last_registration',
        'source_ip', 'source_port', 'contact_ip', 'contact_port',
      ].sort(),
    );
    expect(row).toMatchObject({ username: d.username, authorizing_id: d.id, authorizing_type: 'device', expires: 120, user_agent: 'Yealink SIP-T46U', contact_ip: '198.51.100.7', contact_port: '5060' });
    expect(row.account_id).toBeUndefined();
    expect(await status()).toEqual([{ device_id: d.id, registered: true }]);
    expect((await srv.request('GET', `${base}/registrations/count`, { token })).body.data).toEqual({ count: 1 });
    const [delivery] = await sink.waitFor(1, { filter: (q) => q.body.includes(d.username) });
    const form = new URLSearchParams(delivery.body);
    expect([form.get('event_name'), form.get('username')]).toEqual(['register', d.username]);
    // a refresh notifies nothing
    const again = await simulate({ device_id: d.id });
    expect(again.body.data.events.map((e: { event: string }) => e.event)).toEqual(['registration']);
    expect(again.body.data.events[0]).toMatchObject({ first_registration: false });
  });

  it('unregistering notifies deregister unless the device suppresses it; the device is no longer registered', async () => {
    const d = await device();
    await simulate({ device_id: d.id });
    const off = await simulate({ device_id: d.id, action: 'unregister' });
    expect(off.body.data.events[1]).toMatchObject({ event: 'notifications', event_name: 'deregister', username: d.username });
    expect((await status()).map((s: { device_id: string }) => s.device_id)).not.toContain(d.id);
    const quiet = await device({ suppress_unregister_notifications: true });
    await simulate({ device_id: quiet.id });
    const lapsed = await simulate({ device_id: quiet.id, action: 'expire' });
    expect(lapsed.body.data.events.map((e: { event: string }) => e.event)).toEqual(['registration']);
    const notRegistered = await simulate({ device_id: quiet.id, action: 'unregister' });
    expect(notRegistered.status).toBe(400);
  });

  it('a registration nobody refreshes lapses after its expires seconds', async () => {
    const d = await device();
    await simulate({ device_id: d.id, expires: 1 });
    expect((await registrations()).map((r: { username: string }) => r.username)).toContain(d.username);
    await new Promise((done) => setTimeout(done, 1100));
    expect((await registrations()).map((r: { username: string }) => r.username)).not.toContain(d.username);
    expect((await status()).map((s: { device_id: string }) => s.device_id)).not.toContain(d.id);
  });

  it('flushing: one username (404 naming an unknown one), then all, without notifications', async () => {
    const a = await device();
    const b = await device();
    await simulate({ device_id: a.id });
    await simulate({ device_id: b.id });
    const one = await srv.request('DELETE', `${base}/registrations/${a.username.toUpperCase()}`, { token });
    expect(one.body.data).toBe('ok');
    const left = (await registrations()).map((r: { username: string }) => r.username);
    expect(left).toContain(b.username);
    expect(left).not.toContain(a.username);
    const unknown = await srv.request('DELETE', `${base}/registrations/nobody`, { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.data).toEqual(['nobody']);
    expect((await srv.request('DELETE', `${base}/registrations`, { token })).body.data).toBe('ok');
    expect(await registrations()).toEqual([]);
  });

  it('a device that cannot register is refused; a deleted device takes its registration with it', async () => {
    const bare = (await srv.request('PUT', `${base}/devices`, { token, data: { name: 'No SIP' } })).body.data.id;
    const r = await simulate({ device_id: bare });
    expect(r.status).toBe(400);
    expect(r.body.data.device_id.invalid.message).toMatch(/no SIP username/);
    const d = await device();
    await simulate({ device_id: d.id });
    expect(await status()).toContainEqual({ device_id: d.id, registered: true });
    await srv.request('DELETE', `${base}/devices/${d.id}`, { token });
    expect(await status()).not.toContainEqual({ device_id: d.id, registered: true });
  });

  it('POST devices/{id}/sync answers 202 (cb_devices post/3); an unknown device 404', async () => {
    const d = await device();
    const r = await srv.request('POST', `${base}/devices/${d.id}/sync`, { token });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'success', data: 'sync request sent' });
    expect((await srv.request('POST', `${base}/devices/${'e'.repeat(32)}/sync`, { token })).status).toBe(404);
    expect((await srv.request('PUT', `${base}/devices/status`, { token })).status).toBe(405);
  });

  it('the global listing and count are for super-duper admins', async () => {
    const d = await device();
    await simulate({ device_id: d.id });
    const all = await srv.request('GET', '/v2/registrations', { token });
    expect(all.body.data.map((r: { username: string }) => r.username)).toContain(d.username);
    const sub = await srv.apiLogin((await srv.request('GET', `${base}/api_key`, { token })).body.data.api_key);
    expect((await srv.request('GET', '/v2/registrations/count', { token: sub })).status).toBe(403);
  });
});

describe('the sweeper and tel simulate registration', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let account: string;
  let deviceId: string;
  afterAll(() => tmp.cleanup());

  beforeAll(async () => {
    const master = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).stdout).account_id;
    account = JSON.parse((await runTel(['accounts', 'create', 'Customer', '--parent', master, '--json', '--db', db])).stdout).id;
    const core = openCore(db);
    try {
      deviceId = insertDoc(core, 'device', account, { name: 'Phone', sip: { username: 'phone1', password: 'Secret-sip-1' } }).id;
    } finally {
      closeCore(core);
    }
  });

  it('the sweeper removes lapsed registrations and notifies each deregister', () => {
    const core = openCore(db);
    try {
      const published: Record<string, unknown>[] = [];
      core.bus.subscribe((e) => published.push(e.payload));
      register(core, account, deviceId, { expires: 60 });
      expect(sweepLapsed(core)).toBe(0);
      expect(sweepLapsed(core, Date.now() + 61_000)).toBe(1);
      expect(published.at(-1)).toMatchObject({ event_name: 'deregister', username: 'phone1' });
    } finally {
      closeCore(core);
    }
  });

  it('a sweep that finds nothing lapsed writes nothing: it is done while another process holds the write lock', () => {
    const core = openCore(db);
    const other = new DatabaseSync(db, { timeout: 0 });
    try {
      register(core, account, deviceId, { expires: 60 });
      const later = Date.now() + 61_000;
      other.exec('BEGIN IMMEDIATE');
      // as the server's chore runs it: a sweep that would wait for the lock is left to the next turn (undefined)
      expect(withoutWaiting(core.db, () => sweepLapsed(core))).toBe(0);
      expect(withoutWaiting(core.db, () => sweepLapsed(core, later))).toBeUndefined();
      other.exec('ROLLBACK');
      expect(withoutWaiting(core.db, () => sweepLapsed(core, later))).toBe(1);
    } finally {
      other.close();
      closeCore(core);
    }
  });

  it('tel simulate registration registers and unregisters a device', async () => {
    const on = await runTel(['simulate', 'registration', '--account', account, '--device', deviceId, '--expires', '90', '--json', '--db', db]);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout).events[0]).toMatchObject({ event: 'registration', action: 'register', username: 'phone1', expires: 90 });
    const off = await runTel(['simulate', 'registration', '--account', account, '--device', deviceId, '--unregister', '--db', db]);
    expect(off.stdout.trim().split('\n').map((line) => line.split(' ')[0])).toEqual(['registration', 'notifications']);
    expect((await runTel(['simulate', 'registration', '--account', account, '--device', deviceId, '--unregister', '--expire', '--db', db])).code).toBe(2);
  });
});
