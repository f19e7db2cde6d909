import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('plain document CRUD (devices, callflows, vmboxes, faxboxes, media)', () => {
  let srv: TestServer;
  let base: string;
  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Docs Co');
    base = `/v2/accounts/${sub.id}`;
  });
  afterAll(async () => srv.close());

  it.each([
    ['devices', { name: 'Desk phone' }],
    ['callflows', { name: 'Main', numbers: ['+14155550100'] }],
    ['vmboxes', { name: 'Box', mailbox: '100' }],
    ['faxboxes', { name: 'Fax' }],
    ['media', { name: 'Greeting' }],
  ])('%s: create 201, get, edit, patch, list, delete', async (endpoint, doc) => {
    const token = srv.adminToken;
    const created = await srv.request('PUT', `${base}/${endpoint}`, { token, data: doc });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const got = await srv.request('GET', `${base}/${endpoint}/${id}`, { token });
    expect(got.body.data).toMatchObject(doc);
    const edited = await srv.request('POST', `${base}/${endpoint}/${id}`, { token, data: { ...got.body.data, name: 'Renamed' } });
    expect(edited.body.data.name).toBe('Renamed');
    const patched = await srv.request('PATCH', `${base}/${endpoint}/${id}`, { token, data: { note: 'kept' } });
    expect(patched.body.data).toMatchObject({ name: 'Renamed', note: 'kept' });
    const list = await srv.request('GET', `${base}/${endpoint}`, { token });
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(id);
    const del = await srv.request('DELETE', `${base}/${endpoint}/${id}`, { token });
    expect(del.body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', `${base}/${endpoint}/${id}`, { token })).status).toBe(404);
  });

  it("a callflow's GET names the account's documents its flow refers to (metadata), as Kazoo's does", async () => {
    const token = srv.adminToken;
    const put = async (endpoint: string, data: unknown) => (await srv.request('PUT', `${base}/${endpoint}`, { token, data })).body.data;
    const user = await put('users', { first_name: 'Ada', last_name: 'Lovelace', username: 'ada.meta' });
    const box = await put('vmboxes', { name: 'Ada box', mailbox: '4100' });
    const rule = await put('temporal_rules', { name: 'Weekdays', cycle: 'weekly', interval: 1, wdays: ['monday'] });
    const elsewhere = await createSubAccount(srv, srv.master.account_id, 'Metadata Elsewhere');
    const stranger = (await srv.request('PUT', `/v2/accounts/${elsewhere.id}/vmboxes`, { token, data: { name: 'Not here', mailbox: '4200' } })).body.data;
    const flow = {
      module: 'temporal_route',
      data: {},
      children: {
        [rule.id]: { module: 'user', data: { id: user.id, timeout: 20 }, children: { _: { module: 'voicemail', data: { id: box.id }, children: {} } } },
        _: { module: 'voicemail', data: { id: stranger.id, owner_id: 'f'.repeat(32) }, children: {} },
      },
    };
    const cf = await put('callflows', { name: 'Hours', numbers: ['4100'], flow });
    const got = await srv.request('GET', `${base}/callflows/${cf.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.data.metadata).toEqual({
      [user.id]: { name: 'Ada Lovelace', pvt_type: 'user' },
      [box.id]: { name: 'Ada box', pvt_type: 'vmbox' },
      [rule.id]: { name: 'Weekdays', pvt_type: 'temporal_rule' },
    });
    // a flow naming nothing answers an empty one
    expect((await srv.request('GET', `${base}/callflows/${(await put('callflows', { numbers: ['4101'] })).id}`, { token })).body.data.metadata).toEqual({});
  });

  it('a missing required field is a 400 naming it; nothing is stored', async () => {
    const r = await srv.request('PUT', `${base}/vmboxes`, { token: srv.adminToken, data: { name: 'No mailbox' } });
    expect(r.status).toBe(400);
    expect(r.body.data.mailbox.required).toBeTruthy();
    const list = await srv.request('GET', `${base}/vmboxes`, { token: srv.adminToken });
    expect(list.body.data.find((d: { name: string }) => d.name === 'No mailbox')).toBeUndefined();
  });

  it('an unknown document id is a 404 bad_identifier', async () => {
    const r = await srv.request('GET', `${base}/devices/${'b'.repeat(32)}`, { token: srv.adminToken });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('bad_identifier');
  });
});
