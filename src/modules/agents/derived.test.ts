import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/**
 * The modules Kazoo derives from other documents: agents (users with queues), hotdesks (devices'
 * hotdesk users), dialplans (a system category), the contact list (callflows and what they reach),
 * connectivity (a trunk's numbers checked against their owners).
 */
describe("Kazoo's derived modules", () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  let clerkToken: string;
  let clerk: string;
  const at = (path: string) => `/v2/accounts/${account}/${path}`;
  const put = async (path: string, data: Record<string, unknown>) => {
    const r = await srv.request('PUT', at(path), { token, data });
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body.data.id as string;
  };

  beforeAll(async () => {
    srv = await startTestServer();
    const a = await createSubAccount(srv, srv.master.account_id, 'Derived');
    account = a.id;
    token = await srv.apiLogin(a.apiKey);
    clerk = await put('users', { username: 'clerk', password: 'clerk-pass', first_name: 'Cleo', last_name: 'Clerk', priv_level: 'user' });
    clerkToken = await srv.userLogin('Derived', 'clerk', 'clerk-pass');
  });
  afterAll(() => srv?.close());

  it('agents are the users with queues; each logs in to and out of queues; no ACD logged a status or a call', async () => {
    const queue = await put('queues', { name: 'Support' });
    const other = await put('queues', { name: 'Sales' });
    const ann = await put('users', { first_name: 'Ann', last_name: 'Agent', queues: [queue] });
    await put('users', { first_name: 'Not', last_name: 'Agent' });
    expect((await srv.request('GET', at('agents'), { token })).body.data).toEqual([{ id: ann, first_name: 'Ann', last_name: 'Agent', queues: [queue] }]);
    expect((await srv.request('GET', at(`agents/${ann}`), { token })).body.data).toMatchObject({ id: ann, first_name: 'Ann' });
    const login = await srv.request('POST', at(`agents/${clerk}/queue_status`), { token: clerkToken, data: { action: 'login', queue_id: other } });
    expect(login.body.data).toEqual([other]);
    expect((await srv.request('GET', at('agents'), { token })).body.data.map((r: { id: string }) => r.id)).toEqual([clerk, ann]);
    // a plain user logs themself in, not others
    expect((await srv.request('POST', at(`agents/${ann}/queue_status`), { token: clerkToken, data: { action: 'logout', queue_id: queue } })).status).toBe(403);
    expect((await srv.request('POST', at(`agents/${ann}/queue_status`), { token, data: { action: 'logout', queue_id: queue } })).body.data).toEqual([]);
    expect((await srv.request('POST', at(`agents/${ann}/queue_status`), { token, data: { action: 'away', queue_id: queue } })).body.data.action.enum).toBeDefined();
    expect((await srv.request('POST', at(`agents/${ann}/queue_status`), { token, data: { action: 'login', queue_id: '0'.repeat(32) } })).status).toBe(404);
    expect((await srv.request('GET', at(`agents/${clerk}/queue_status`), { token })).body.data).toEqual([other]);
    expect((await srv.request('GET', at(`agents/${ann}/status`), { token })).body.data).toBe('unknown');
    expect((await srv.request('GET', at(`agents/status/${ann}`), { token })).body.data).toBe('unknown');
    expect((await srv.request('GET', at('agents/status'), { token })).body.data).toEqual({});
    expect((await srv.request('GET', at('agents/stats'), { token })).body.data).toEqual({});
    expect((await srv.request('GET', at(`agents/${'0'.repeat(32)}/status`), { token })).status).toBe(404);
  });

  it("hotdesks: each user a device's hotdesk names, by user, a page at a time", async () => {
    const [u1, u2] = [await put('users', { first_name: 'H', last_name: 'One' }), await put('users', { first_name: 'H', last_name: 'Two' })].sort();
    const d1 = await put('devices', { name: 'Hot 1', hotdesk: { users: { [u1]: {}, [u2]: {} } } });
    const d2 = await put('devices', { name: 'Hot 2', hotdesk: { users: { [u1]: {} } } });
    await put('devices', { name: 'Cold' });
    const first = await srv.request('GET', `${at('hotdesks')}?page_size=2`, { token });
    expect(first.body.data).toEqual([d1, d2].sort().map((d) => ({ device_id: d, device_name: d === d1 ? 'Hot 1' : 'Hot 2' })));
    const next = await srv.request('GET', `${at('hotdesks')}?page_size=2&start_key=${first.body.next_start_key}`, { token });
    expect(next.body.data).toEqual([{ device_id: d1, device_name: 'Hot 1' }]);
    expect((await srv.request('GET', at(`users/${u2}/hotdesks`), { token })).body.data).toEqual([{ device_id: d1, device_name: 'Hot 1' }]);
    await srv.request('PATCH', at(`devices/${d1}`), { token, data: { hotdesk: { users: null } } });
    expect((await srv.request('GET', at(`users/${u2}/hotdesks`), { token })).body.data).toEqual([]);
  });

  it('dialplans come from the `dialplans` system category, each by its name', async () => {
    expect((await srv.request('GET', at('dialplans'), { token })).body.data).toEqual({});
    const plans = { '^(\\d{7})$': { prefix: '+1415', name: 'San Francisco' }, '^0(\\d{9})$': [{ prefix: '+33', description: 'France' }] };
    expect((await srv.request('POST', '/v2/system_configs/dialplans', { token: srv.adminToken, data: { default: plans } })).status).toBe(200);
    expect((await srv.request('GET', at('dialplans'), { token })).body.data).toEqual({
      'San Francisco': { prefix: '+1415', name: 'San Francisco', regex: '^(\\d{7})$' },
      '^0(\\d{9})$': { prefix: '+33', description: 'France', name: '^0(\\d{9})$' },
    });
  });

  it('the contact list: what callflows reach, named by the callflow or by what it reaches, excluded documents left out', async () => {
    const user = await put('users', { first_name: 'Lisa', last_name: 'Listed' });
    const hidden = await put('users', { first_name: 'Hid', last_name: 'Den', contact_list: { exclude: true } });
    const menu = await put('menus', { name: 'Reception' });
    const flow = (numbers: string[], flowDoc: Record<string, unknown>, extra: Record<string, unknown> = {}) => put('callflows', { numbers, flow: flowDoc, ...extra });
    await flow(['2001', '+14155550201'], { module: 'user', data: { id: user }, children: { _: { module: 'voicemail', data: {} } } });
    await flow(['2002'], { module: 'user', data: { id: hidden } });
    await flow(['2003'], { module: 'menu', data: { id: menu } });
    await flow(['*97'], { module: 'voicemail', data: { action: 'check' } }, { featurecode: { name: 'voicemail' } });
    await flow(['2004'], { module: 'play', data: { id: 'x' } });
    await flow(['+14155550299'], { module: 'ring_group', data: { endpoints: [{ id: user, endpoint_type: 'user' }] } }, { name: 'Sales line' });
    await flow(['2005'], { module: 'device', data: {} }, { contact_list: { exclude: true }, name: 'Excluded flow' });
    const list = await srv.request('GET', at('contact_list'), { token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toEqual([
      { name: 'Lisa Listed', external_number: '+14155550201', internal_number: '2001' },
      { name: 'Reception (menu)', internal_number: '2003' },
      { name: 'voicemail (check)', internal_number: '*97' },
      { name: 'Sales line (ring group)', external_number: '+14155550299' },
    ]);
    // an account may list only some kinds of contacts
    await srv.request('PATCH', `/v2/accounts/${account}`, { token, data: { contact_list: { includes: ['featurecode'] } } });
    expect((await srv.request('GET', at('contact_list'), { token })).body.data).toEqual([{ name: 'voicemail (check)', internal_number: '*97' }]);
  });

  it("connectivity: listed by id, the account's realm written in; a number another account owns is refused", async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Number Owner');
    srv.core.db.prepare("INSERT INTO phone_numbers (number, account_id, state, created, modified) VALUES ('+14155550300', ?, 'in_service', 0, 0)").run(other.id);
    srv.core.db.prepare("INSERT INTO phone_numbers (number, account_id, state, created, modified) VALUES ('+14155550301', ?, 'in_service', 0, 0)").run(account);
    const server = (dids: Record<string, unknown>) => ({ servers: [{ auth: { auth_method: 'IP', ip: '10.0.0.1' }, DIDs: dids }] });
    const refused = await srv.request('PUT', at('connectivity'), { token, data: server({ '+14155550300': {}, '+14155550301': {} }) });
    expect(refused.status).toBe(403);
    expect(refused.body.data.cause).toBe('unauthorized to use +14155550300');
    const made = await srv.request('PUT', at('connectivity'), { token, data: { name: 'PBX', ...server({ '4155550301': {}, '+19995550000': {} }) } });
    expect(made.status, made.text).toBe(201);
    const realm = (await srv.request('GET', `/v2/accounts/${account}`, { token })).body.data.realm;
    expect(made.body.data.account).toEqual({ auth_realm: realm });
    expect(made.body.data.servers[0].options).toBeUndefined();
    expect((await srv.request('GET', at('connectivity'), { token })).body.data).toEqual([made.body.data.id]);
    expect((await srv.request('PATCH', at(`connectivity/${made.body.data.id}`), { token, data: server({ '+14155550300': {} }) })).status).toBe(403);
    // the owner's ancestor may route it
    expect((await srv.request('PUT', `/v2/accounts/${other.id}/connectivity`, { token: srv.adminToken, data: server({ '+14155550300': {} }) })).status).toBe(201);
    expect((await srv.request('PUT', at('connectivity'), { token, data: { servers: [{ auth: { auth_method: 'carrier pigeon' } }] } })).body.data['servers.0.auth.auth_method'].enum).toBeDefined();
  });
});
