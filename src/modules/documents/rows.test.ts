import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

// Listing rows, kind by kind, exactly as Kazoo's views emit them: the `crossbar_listing` map
// functions of kazoo_apps' account views (devices, callflows, vmboxes, users, queues in acdc) and
// kazoo_media's media view, with what the kind's crossbar module adds (cb_vmboxes'
// load_vmbox_summary/2 counts). A view's undefined values are not in its rows.

describe('listing rows as Kazoo views emit them', () => {
  let srv: TestServer;
  let base: string;
  let userId: string;
  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Rows Co');
    base = `/v2/accounts/${sub.id}`;
    userId = (await srv.request('PUT', `${base}/users`, { token: srv.adminToken, data: { first_name: 'Ann', last_name: 'Lee' } })).body.data.id;
  });
  afterAll(async () => srv.close());

  /** Creates a document and answers its listing row. */
  async function rowOf(endpoint: string, doc: Record<string, unknown>): Promise<Record<string, unknown>> {
    const created = await srv.request('PUT', `${base}/${endpoint}`, { token: srv.adminToken, data: doc });
    expect(created.status, JSON.stringify(created.body.data)).toBe(201);
    const list = await srv.request('GET', `${base}/${endpoint}?paginate=false`, { token: srv.adminToken });
    return list.body.data.find((r: { id: string }) => r.id === created.body.data.id);
  }

  it.each([
    // devices/crossbar_listing: mac_address '' and device_type sip_device by default, flags [] always, the SIP username
    ['devices', { name: 'Bare' }, { name: 'Bare', mac_address: '', enabled: true, device_type: 'sip_device', flags: [] }],
    [
      'devices',
      { name: 'Desk', device_type: 'softphone', mac_address: '00:04:f2:ab:7e:fd', owner_id: 'OWNER', sip: { username: 'desk1', password: 'Secret-sip-1' }, flags: ['x'], mobile: { mdn: '4155550100' } },
      { name: 'Desk', username: 'desk1', mac_address: '00:04:f2:ab:7e:fd', owner_id: 'OWNER', enabled: true, device_type: 'softphone', mobile: { mdn: '4155550100' }, flags: ['x'] },
    ],
    // callflows/crossbar_listing: featurecode false when none, the flow's modules each once (a node whose data skips it, or without data, is not counted)
    [
      'callflows',
      {
        name: 'Main',
        type: 'mainUserCallflow',
        numbers: ['+14155550111'],
        owner_id: 'OWNER',
        group_id: 'g1',
        flow: { module: 'user', data: { id: 'OWNER' }, children: { _: { module: 'voicemail', data: { id: 'b'.repeat(32) }, children: { _: { module: 'user', data: {} } } }, timeout: { module: 'play', data: { skip_module: true } } } },
      },
      { name: 'Main', type: 'mainUserCallflow', numbers: ['+14155550111'], patterns: [], featurecode: false, owner_id: 'OWNER', group_id: 'g1', modules: ['user', 'voicemail'], flags: [] },
    ],
    ['callflows', { name: 'Code', patterns: ['^\\*5$'], featurecode: { name: 'park', number: '5' } }, { name: 'Code', numbers: [], patterns: ['^\\*5$'], featurecode: { name: 'park', number: '5' }, modules: [], flags: [] }],
    // vmboxes/crossbar_listing: a box without messages counts 0 and tells no folders
    ['vmboxes', { name: 'Box', mailbox: '3000', owner_id: 'OWNER' }, { name: 'Box', mailbox: '3000', owner_id: 'OWNER', messages: 0, flags: [] }],
    // kazoo_media's media/crossbar_listing: language lower-cased ('' when none) and is_prompt from prompt_id
    ['media', { name: 'Prompt', language: 'FR-ca', prompt_id: 'vm-enter_pass', media_source: 'upload' }, { name: 'Prompt', media_source: 'upload', language: 'fr-ca', is_prompt: true }],
    ['media', { name: 'Greeting' }, { name: 'Greeting', media_source: 'upload', language: 'en-us', is_prompt: false }],
    // acdc's queues/crossbar_listing: the name and strategy only
    ['queues', { name: 'Support', notifications: { pickup: 'http://127.0.0.1:9/p' } }, { name: 'Support', strategy: 'round_robin' }],
  ])('%s %#: the row of %j', async (endpoint, doc, row) => {
    const fill = (v: Record<string, unknown>) => JSON.parse(JSON.stringify(v).replaceAll('OWNER', userId));
    const got = await rowOf(endpoint, fill(doc));
    expect(got).toEqual({ id: got.id, ...fill(row) });
  });

  it("users/crossbar_listing: the user's features worked out from its settings, no enabled, flags always", async () => {
    const got = await rowOf('users', {
      first_name: 'Bo',
      last_name: 'Ng',
      username: 'bo',
      email: 'bo@example.com',
      priv_level: 'admin',
      timezone: 'Europe/Paris',
      presence_id: '2001',
      vm_to_email_enabled: true,
      call_forward: { enabled: false, failover: true, number: '+14155550100' },
      caller_id: { external: { number: '+14155550100' } },
      smartpbx: { find_me_follow_me: { enabled: true }, conferencing: { enabled: false } },
    });
    expect(got).toEqual({
      id: got.id,
      features: ['find_me_follow_me', 'call_forward_failover', 'caller_id', 'vm_to_email'],
      username: 'bo',
      email: 'bo@example.com',
      first_name: 'Bo',
      last_name: 'Ng',
      priv_level: 'admin',
      presence_id: '2001',
      timezone: 'Europe/Paris',
      flags: [],
    });
  });

  it("a vmbox row counts its new and saved messages and tells its folders (cb_vmboxes load_vmbox_summary/2)", async () => {
    const box = (await srv.request('PUT', `${base}/vmboxes`, { token: srv.adminToken, data: { name: 'Counted', mailbox: '3100' } })).body.data.id;
    for (let i = 0; i < 3; i++) {
      const sim = await srv.request('PUT', `${base}/simulations`, { token: srv.adminToken, data: { kind: 'voicemail', vmbox_id: box } });
      expect(sim.status).toBe(201);
    }
    const messages = (await srv.request('GET', `${base}/vmboxes/${box}/messages`, { token: srv.adminToken })).body.data;
    await srv.request('POST', `${base}/vmboxes/${box}/messages/${messages[0].media_id}`, { token: srv.adminToken, data: { folder: 'saved' } });
    await srv.request('POST', `${base}/vmboxes/${box}/messages/${messages[1].media_id}`, { token: srv.adminToken, data: { folder: 'deleted' } });
    const list = await srv.request('GET', `${base}/vmboxes`, { token: srv.adminToken });
    const row = list.body.data.find((r: { id: string }) => r.id === box);
    expect(row).toEqual({ id: box, name: 'Counted', mailbox: '3100', messages: 2, folders: { new: 1, saved: 1 }, flags: [] });
  });

  it("a fax box's SMTP address is made at create and shown in its create and change answers and its row, not in a read (cb_faxboxes)", async () => {
    const created = await srv.request('PUT', `${base}/faxboxes`, { token: srv.adminToken, data: { name: 'Fax', smtp_email_address: 'mine@example.com' } });
    const address = created.body.data.smtp_email_address;
    expect(address).toMatch(/^[0-9a-f]{8}\.fax\.kazoo\.io$/);
    const id = created.body.data.id;
    const read = await srv.request('GET', `${base}/faxboxes/${id}`, { token: srv.adminToken });
    expect(read.body.data.smtp_email_address).toBeUndefined();
    const changed = await srv.request('POST', `${base}/faxboxes/${id}`, { token: srv.adminToken, data: { ...read.body.data, smtp_email_address: 'x@example.com' } });
    expect(changed.body.data.smtp_email_address).toBe(address);
    const row = (await srv.request('GET', `${base}/faxboxes`, { token: srv.adminToken })).body.data.find((r: { id: string }) => r.id === id);
    expect(row).toMatchObject({ id, name: 'Fax', smtp_email_address: address });
  });

  it("a queue is answered with its agents (cb_queues read/2)", async () => {
    const queue = (await srv.request('PUT', `${base}/queues`, { token: srv.adminToken, data: { name: 'Agents' } })).body.data.id;
    expect((await srv.request('GET', `${base}/queues/${queue}`, { token: srv.adminToken })).body.data.agents).toEqual([]);
    await srv.request('POST', `${base}/queues/${queue}/roster`, { token: srv.adminToken, data: [userId] });
    const got = await srv.request('GET', `${base}/queues/${queue}`, { token: srv.adminToken });
    expect(got.body.data).toMatchObject({ id: queue, name: 'Agents', agents: [userId] });
  });
});
