import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';

describe('push notification subscriptions and the push outbox', () => {
  let srv: TestServer;
  let sink: Sink;
  let base: string;
  let accountId: string;
  const token = () => srv.adminToken;
  const create = async (endpoint: string, data: Record<string, unknown>) => {
    const r = await srv.request('PUT', `${base}/${endpoint}`, { token: token(), data });
    if (r.status !== 201) throw new Error(`${endpoint}: ${r.status} ${r.text}`);
    return r.body.data.id as string;
  };
  const subPath = (app: string, device: string) => `${base}/push_notification_subscriptions/${app}/${device}`;
  const reg = (mobile: string, extra: Record<string, unknown> = {}) => ({
    mobile_device_id: mobile,
    notification_registration_id: `token-${mobile}`,
    notification_type: 'fcm',
    ...extra,
  });

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    accountId = (await createSubAccount(srv, srv.master.account_id, 'Push Co')).id;
    base = `/v2/accounts/${accountId}`;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('PUT creates (201) with the defaults, an id, and app_name/device_id taken from the path', async () => {
    const device = await create('devices', { name: 'Softphone' });
    const r = await srv.request('PUT', subPath('com.lab.app', device), {
      token: token(),
      data: { ...reg('m-1'), app_name: 'other', device_id: 'other' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      app_name: 'com.lab.app',
      device_id: device,
      mobile_device_id: 'm-1',
      notification_registration_id: 'token-m-1',
      notification_type: 'fcm',
      notification_preferences: ['chat', 'new_voicemail'],
      platform: 'android',
    });
    const got = await srv.request('GET', subPath('com.lab.app', device), { token: token() });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(r.body.data);

    const again = await srv.request('PUT', subPath('com.lab.app', device), { token: token(), data: reg('m-1') });
    expect(again.status).toBe(400);
    expect(again.body.data.device_id.unique.message).toMatch(/already exists/);
  });

  it('the device must exist; a missing subscription is a 404 naming the device', async () => {
    const ghost = 'a'.repeat(32);
    const r = await srv.request('PUT', subPath('com.lab.app', ghost), { token: token(), data: reg('m-x') });
    expect(r.status).toBe(404);
    expect(r.body.data).toEqual({ cause: ghost, message: 'bad identifier' });
    const device = await create('devices', { name: 'Unsubscribed' });
    for (const method of ['GET', 'POST', 'DELETE']) {
      const m = await srv.request(method, subPath('com.lab.app', device), { token: token(), data: method === 'GET' ? undefined : reg('m-y') });
      expect(m.status, method).toBe(404);
      expect(m.body.data.cause).toBe(device);
    }
  });

  it('required fields and enums are checked (400, nothing stored)', async () => {
    const device = await create('devices', { name: 'Strict' });
    const r = await srv.request('PUT', subPath('com.lab.app', device), {
      token: token(),
      data: { notification_type: 'sms', notification_preferences: ['chat', 'fax'], platform: 'windows' },
    });
    expect(r.status).toBe(400);
    expect(r.body.data.mobile_device_id.required).toBeTruthy();
    expect(r.body.data.notification_registration_id.required).toBeTruthy();
    expect(r.body.data.notification_type.enum.target).toEqual(['apns', 'fcm']);
    expect(r.body.data['notification_preferences.1'].enum).toBeTruthy();
    expect(r.body.data.platform.enum.target).toEqual(['android', 'ios']);
    expect((await srv.request('GET', subPath('com.lab.app', device), { token: token() })).status).toBe(404);
  });

  it('POST changes preferences and token; DELETE answers the subscription with _read_only.deleted', async () => {
    const device = await create('devices', { name: 'Changer' });
    const put = await srv.request('PUT', subPath('com.lab.app', device), { token: token(), data: reg('m-2') });
    const post = await srv.request('POST', subPath('com.lab.app', device), {
      token: token(),
      data: { ...put.body.data, notification_preferences: ['new_unowned_voicemail'], notification_registration_id: 'fresh' },
    });
    expect(post.status).toBe(200);
    expect(post.body.data).toMatchObject({ id: put.body.data.id, notification_preferences: ['new_unowned_voicemail'], notification_registration_id: 'fresh' });
    const del = await srv.request('DELETE', subPath('com.lab.app', device), { token: token() });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ ...post.body.data, _read_only: { deleted: true } });
    expect((await srv.request('GET', subPath('com.lab.app', device), { token: token() })).status).toBe(404);
  });

  it('registering a mobile_device_id removes the other devices registered with it in that app only', async () => {
    const [d1, d2, d3] = [await create('devices', { name: 'D1' }), await create('devices', { name: 'D2' }), await create('devices', { name: 'D3' })];
    expect((await srv.request('PUT', subPath('app.a', d1), { token: token(), data: reg('phone-9') })).status).toBe(201);
    expect((await srv.request('PUT', subPath('app.b', d1), { token: token(), data: reg('phone-9') })).status).toBe(201);
    expect((await srv.request('PUT', subPath('app.a', d2), { token: token(), data: reg('phone-9') })).status).toBe(201);
    expect((await srv.request('GET', subPath('app.a', d1), { token: token() })).status).toBe(404);
    expect((await srv.request('GET', subPath('app.b', d1), { token: token() })).status).toBe(200);
    expect((await srv.request('PUT', subPath('app.a', d3), { token: token(), data: reg('phone-10') })).status).toBe(201);
    const moved = await srv.request('POST', subPath('app.a', d3), { token: token(), data: { mobile_device_id: 'phone-9' } });
    expect(moved.status).toBe(200);
    expect((await srv.request('GET', subPath('app.a', d2), { token: token() })).status).toBe(404);
  });

  it('deleting a device drops its subscriptions', async () => {
    const device = await create('devices', { name: 'Doomed' });
    await srv.request('PUT', subPath('app.c', device), { token: token(), data: reg('phone-11') });
    expect((await srv.request('DELETE', `${base}/devices/${device}`, { token: token() })).status).toBe(200);
    const list = await srv.request('GET', `${base}/push_notification_subscriptions`, { token: token() });
    expect(list.body.data.find((s: { device_id: string }) => s.device_id === device)).toBeUndefined();
  });

  it('a voicemail pushes new_voicemail to the owner\'s subscriptions that ask for it, recorded newest first', async () => {
    const owner = await create('users', { username: 'owner', password: 'pw', first_name: 'F', last_name: 'L' });
    const other = await create('users', { username: 'other', password: 'pw', first_name: 'F', last_name: 'L' });
    const ios = await create('devices', { name: 'iPhone', owner_id: owner });
    const android = await create('devices', { name: 'Pixel', owner_id: owner });
    const chatOnly = await create('devices', { name: 'Tablet', owner_id: owner });
    const foreign = await create('devices', { name: 'Other phone', owner_id: other });
    await srv.request('PUT', subPath('vm.app', ios), { token: token(), data: reg('ios-1', { notification_type: 'apns', platform: 'ios' }) });
    await srv.request('PUT', subPath('vm.app', android), { token: token(), data: reg('and-1') });
    await srv.request('PUT', subPath('vm.app', chatOnly), { token: token(), data: reg('tab-1', { notification_preferences: ['chat'] }) });
    await srv.request('PUT', subPath('vm.app', foreign), { token: token(), data: reg('oth-1') });
    const box = await create('vmboxes', { name: 'Owner box', mailbox: '100', owner_id: owner });

    const sim = await srv.request('PUT', `${base}/simulations`, {
      token: token(),
      data: { kind: 'voicemail', vmbox_id: box, caller_id_number: '+14155550100', caller_id_name: 'Alice' },
    });
    expect(sim.status).toBe(201);
    expect(sim.body.data.events.map((e: { event: string }) => e.event)).toEqual(['notifications', 'new_voicemail']);
    const event = sim.body.data.events[1];
    expect(event).toMatchObject({ event: 'new_voicemail', vmbox_id: box, owner_id: owner, mailbox: '100', caller_id_name: 'Alice' });
    expect(event.pushes.map((p: { device_id: string }) => p.device_id).sort()).toEqual([ios, android].sort());

    const outbox = await srv.request('GET', `${base}/push_notifications`, { token: token() });
    expect(outbox.status).toBe(200);
    expect(outbox.body.data).toHaveLength(2);
    // newest first by the listing's key: when they were recorded, then (made in the same millisecond) their ids
    const recorded = (id: string) => (srv.core.db.prepare('SELECT created FROM push_notifications WHERE id = ?').get(id) as { created: number }).created;
    const newestFirst = event.pushes.map((p: { id: string }) => p.id).sort((a: string, b: string) => recorded(b) - recorded(a) || (a < b ? 1 : -1));
    expect(outbox.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst);
    const apns = outbox.body.data.find((p: { device_id: string }) => p.device_id === ios);
    expect(apns).toMatchObject({ event: 'new_voicemail', notification_type: 'apns', notification_registration_id: 'token-ios-1' });
    expect(apns.request.headers['apns-topic']).toBe('vm.app');
    expect(apns.request.body.aps.alert.body).toBe('From Alice in Owner box');
    expect(apns.request.body.vmbox_id).toBe(box);
    const fcm = outbox.body.data.find((p: { device_id: string }) => p.device_id === android);
    expect(fcm.request.body).toMatchObject({ to: 'token-and-1', priority: 'high', data: { event: 'new_voicemail', vmbox_id: box } });
    expect(fcm.request.body.notification).toBeUndefined();
    expect((await srv.request('GET', `${base}/push_notifications/${apns.id}`, { token: token() })).body.data).toEqual(apns);
  });

  it('a box without owner pushes new_unowned_voicemail to every subscription asking for it', async () => {
    const device = await create('devices', { name: 'Front desk' });
    await srv.request('PUT', subPath('desk.app', device), {
      token: token(),
      data: reg('desk-1', { notification_preferences: ['new_unowned_voicemail'], platform: 'ios' }),
    });
    const box = await create('vmboxes', { name: 'Sales', mailbox: '200' });
    const sim = await srv.request('PUT', `${base}/simulations`, { token: token(), data: { kind: 'voicemail', vmbox_id: box } });
    expect(sim.body.data.events[1].event).toBe('new_unowned_voicemail');
    expect(sim.body.data.events[1].pushes).toHaveLength(1);
    const newest = (await srv.request('GET', `${base}/push_notifications?page_size=1`, { token: token() })).body;
    expect(newest.data[0]).toMatchObject({ event: 'new_unowned_voicemail', device_id: device, platform: 'ios' });
    expect(newest.data[0].request.body.notification.title).toBe('New voicemail');
    // following next_start_key walks the whole listing, a push a page, in the listing's order
    const all = (await srv.request('GET', `${base}/push_notifications`, { token: token() })).body.data.map((p: { id: string }) => p.id);
    expect(all).toHaveLength(3);
    const walked: string[] = newest.data.map((p: { id: string }) => p.id);
    let key = newest.next_start_key;
    while (key !== undefined && walked.length <= all.length) {
      const page = (await srv.request('GET', `${base}/push_notifications?page_size=1&start_key=${encodeURIComponent(key)}`, { token: token() })).body;
      walked.push(...page.data.map((p: { id: string }) => p.id));
      key = page.next_start_key;
    }
    expect(walked).toEqual(all);
  });

  it('the voicemail also reaches `notifications` webhooks as voicemail_new', async () => {
    const hook = await srv.request('PUT', `${base}/webhooks`, {
      token: token(),
      data: { name: 'vm', hook: 'notifications', uri: `${sink.url}/vm`, format: 'json', custom_data: { type: 'voicemail_new' } },
    });
    expect(hook.status).toBe(201);
    const box = await create('vmboxes', { name: 'Hooked', mailbox: '300' });
    const sim = await srv.request('PUT', `${base}/simulations`, { token: token(), data: { kind: 'voicemail', vmbox_id: box, length: 7 } });
    const [req] = await sink.waitFor(1, { filter: (r) => r.path === '/vm' });
    expect(JSON.parse(req.body)).toMatchObject({
      event_name: 'voicemail_new',
      voicemail_box: box,
      voicemail_length: 7000,
      voicemail_id: sim.body.data.events[1].voicemail_id,
      call_id: sim.body.data.events[1].call_id,
    });
  });

  it('an unknown voicemail box or owner is a 404; a missing vmbox_id a 400', async () => {
    const missing = await srv.request('PUT', `${base}/simulations`, { token: token(), data: { kind: 'voicemail' } });
    expect(missing.status).toBe(400);
    expect(missing.body.data.vmbox_id.required).toBeTruthy();
    const ghost = 'c'.repeat(32);
    const r = await srv.request('PUT', `${base}/simulations`, { token: token(), data: { kind: 'voicemail', vmbox_id: ghost } });
    expect(r.status).toBe(404);
    expect(r.body.data.cause).toBe(ghost);
  });
});
