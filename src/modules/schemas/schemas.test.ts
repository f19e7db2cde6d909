import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe("tel's JSON Schemas in Kazoo's form (/v2/schemas), and logins by address (/v2/ip_auth)", () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  it('lists and answers the schemas without a token, as Kazoo writes its files', async () => {
    const names = await srv.request('GET', '/v2/schemas', { token: null });
    expect(names.status).toBe(200);
    expect(names.body.data).toEqual([...names.body.data].sort());
    expect(names.body.data).toEqual(expect.arrayContaining(['devices', 'callflows.action', 'blacklists', 'storage.attachment.aws']));
    const devices = await srv.request('GET', '/v2/schemas/devices', { token: null });
    expect(devices.body.data).toMatchObject({ $schema: 'http://json-schema.org/draft-04/schema#', id: 'devices', type: 'object' });
    expect(devices.body.data.properties.caller_id).toEqual({ $ref: 'caller_id' });
    // tel's own checks under Kazoo's names
    const action = (await srv.request('GET', '/v2/schemas/callflows.action', { token: null })).body.data;
    expect(action.properties.module['kazoo-validation']).toBe(true);
    expect(action['x-module']).toBeUndefined();
    const faxbox = (await srv.request('GET', '/v2/schemas/faxbox', { token: null })).body.data;
    expect(faxbox.properties.smtp_permission_list.items).toEqual({ type: 'string', 'kazoo-regexp': true });
    expect((await srv.request('GET', '/v2/schemas/no_such_schema', { token: null })).status).toBe(404);
  });

  it('checks a document against a schema (a token needed): the defaults filled, or the 400 a write of it would get', async () => {
    expect((await srv.request('PUT', '/v2/schemas/menus/validation', { token: null, data: { name: 'IVR' } })).status).toBe(401);
    const ok = await srv.request('PUT', '/v2/schemas/menus/validation', { token: srv.adminToken, data: { name: 'IVR', retries: '5' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ name: 'IVR', retries: 5, hunt: true });
    const bad = await srv.request('PUT', '/v2/schemas/menus/validation', { token: srv.adminToken, data: { retries: 99 } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data).sort()).toEqual(['name', 'retries']);
    expect((await srv.request('PUT', '/v2/schemas/nothing/validation', { token: srv.adminToken, data: {} })).status).toBe(404);
  });

  it("an address an account's `ips` lists logs in to it (for the user the entry names); listed by none or by two, it is refused", async () => {
    const login = () => srv.request('PUT', '/v2/ip_auth', { token: null });
    expect((await login()).status).toBe(401);
    const a = await createSubAccount(srv, srv.master.account_id, 'By Address');
    const token = await srv.apiLogin(a.apiKey);
    const user = (await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token, data: { username: 'desk', password: 'desk-pass', first_name: 'D', last_name: 'Esk', priv_level: 'user' } })).body.data.id;
    const clerk = await srv.userLogin('By Address', 'desk', 'desk-pass');
    // which addresses log in is an admin's setting
    expect((await srv.request('PATCH', `/v2/accounts/${a.id}`, { token: clerk, data: { ips: [{ ip: '127.0.0.1' }] } })).status).toBe(403);
    expect((await srv.request('PUT', `/v2/accounts/${a.id}`, { token: clerk, data: { name: 'Sneaky child', ips: [{ ip: '127.0.0.1' }] } })).status).toBe(403);
    expect((await srv.request('PATCH', `/v2/accounts/${a.id}`, { token, data: { ips: [{ ip: '127.0.0.1', owner_id: user }] } })).status).toBe(200);
    const r = await login();
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ account_id: a.id, owner_id: user, method: 'cb_ip_auth', priv_level: 'user' });
    const info = await srv.request('GET', '/v2/token_auth', { token: r.body.auth_token });
    expect(info.body.data).toMatchObject({ account_id: a.id, owner_id: user, method: 'cb_ip_auth' });
    // the entry's user must be the account's
    await srv.request('PATCH', `/v2/accounts/${a.id}`, { token, data: { ips: [{ ip: '127.0.0.1', owner_id: '0'.repeat(32) }] } });
    expect((await login()).status).toBe(401);
    // an address two accounts list logs in to neither
    await srv.request('PATCH', `/v2/accounts/${a.id}`, { token, data: { ips: [{ ip: '127.0.0.1' }] } });
    expect((await login()).body.data).toMatchObject({ account_id: a.id, owner_id: null });
    await srv.request('PATCH', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken, data: { ips: [{ ip: '127.0.0.1' }] } });
    expect((await login()).status).toBe(401);
    await srv.request('PATCH', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken, data: { ips: null } });
    await srv.request('PATCH', `/v2/accounts/${a.id}`, { token, data: { enabled: false } });
    expect((await login()).status).toBe(401);
  });
});
