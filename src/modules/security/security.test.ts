import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { DEFAULT_AUTH_MODULES } from '../auth/auth-modules.js';

describe("login settings (/v2/security, /v2/accounts/{id}/security) as crossbar_auth reads them: system, reseller, account", () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let customer: { id: string; apiKey: string };
  let resellerToken: string;
  const security = (account: string, path = '') => `/v2/accounts/${account}/security${path}`;
  const apiLogin = (apiKey: string) => srv.request('PUT', '/v2/api_auth', { token: null, data: { api_key: apiKey } });

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Auth Reseller');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken });
    customer = await createSubAccount(srv, reseller.id, 'Auth Customer');
    resellerToken = await srv.apiLogin(reseller.apiKey);
  });
  afterAll(() => srv?.close());

  it("GET /v2/security lists the methods an account may configure; an account's own settings start empty over the system's", async () => {
    const methods = await srv.request('GET', '/v2/security', { token: resellerToken });
    expect(methods.body.data).toEqual({ available_auth_methods: ['cb_user_auth', 'cb_api_auth', 'cb_auth', 'cb_ip_auth'] });
    const r = await srv.request('GET', security(customer.id), { token: resellerToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ account: {}, inherited_config: { auth_modules: DEFAULT_AUTH_MODULES } });
  });

  it("a reseller's settings apply to its accounts: an API-key login of a method it disables is refused, and logged", async () => {
    const off = await srv.request('POST', security(reseller.id), { token: resellerToken, data: { auth_modules: { cb_api_auth: { enabled: false } } } });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ auth_modules: { cb_api_auth: { enabled: false } }, id: 'configs_crossbar.auth' });
    const inherited = (await srv.request('GET', security(customer.id), { token: resellerToken })).body.data.inherited_config.auth_modules;
    expect(inherited.cb_api_auth).toEqual({ ...DEFAULT_AUTH_MODULES.cb_api_auth, enabled: false });
    expect(inherited.cb_user_auth).toEqual(DEFAULT_AUTH_MODULES.cb_user_auth);
    const refused = await apiLogin(customer.apiKey);
    expect(refused.status).toBe(401);
    expect((await apiLogin(reseller.apiKey)).status).toBe(401);
    // the master's other accounts log in as before
    const other = await createSubAccount(srv, srv.master.account_id, 'Auth Other');
    expect((await apiLogin(other.apiKey)).status).toBe(201);

    const attempts = await srv.request('GET', security(customer.id, '/attempts'), { token: srv.adminToken });
    expect(attempts.body.data).toEqual([
      expect.objectContaining({ auth_type: 'jwt_auth_token', auth_module: 'cb_api_auth', status: 'failed', message: 'authentication module cb_api_auth is disabled' }),
    ]);
    const one = await srv.request('GET', security(customer.id, `/attempts/${attempts.body.data[0].id}`), { token: srv.adminToken });
    expect(one.body.data).toMatchObject({ id: attempts.body.data[0].id, status: 'failed', client_ip: '127.0.0.1' });
    expect((await srv.request('GET', security(reseller.id, `/attempts/${attempts.body.data[0].id}`), { token: srv.adminToken })).status).toBe(404);
  });

  it('an account overrides what it inherits (PATCH merges, POST replaces); DELETE goes back to inheriting', async () => {
    const on = await srv.request('PATCH', security(customer.id), { token: srv.adminToken, data: { auth_modules: { cb_api_auth: { enabled: true } } } });
    expect(on.status).toBe(200);
    expect((await apiLogin(customer.apiKey)).status).toBe(201);
    const more = await srv.request('PATCH', security(customer.id), { token: srv.adminToken, data: { auth_modules: { cb_user_auth: { log_successful_attempts: false } } } });
    expect(more.body.data.auth_modules).toEqual({ cb_api_auth: { enabled: true }, cb_user_auth: { log_successful_attempts: false } });
    // a change answers the saved document with its id (cb_security patch/1 after crossbar_doc:save/1); a read leaves it out (read/1)
    expect(more.body.data.id).toBe('configs_crossbar.auth');
    const { id: _id, ...settings } = more.body.data;
    expect((await srv.request('GET', security(customer.id), { token: srv.adminToken })).body.data.account).toEqual(settings);
    // the account's settings are its crossbar.auth configuration too
    expect((await srv.request('GET', `/v2/accounts/${customer.id}/configs/crossbar.auth`, { token: srv.adminToken })).body.data.auth_modules.cb_api_auth.enabled).toBe(true);
    const gone = await srv.request('DELETE', security(customer.id), { token: srv.adminToken });
    expect(gone.status).toBe(200);
    expect(gone.body.data).toMatchObject({ id: 'configs_crossbar.auth', auth_modules: settings.auth_modules });
    expect((await apiLogin(customer.apiKey)).status).toBe(401);
    const again = await srv.request('DELETE', security(customer.id), { token: srv.adminToken });
    expect(again.status).toBe(404);
    expect(again.body.data.cause).toBe('account does not have customize auth configuration');
    await srv.request('DELETE', security(reseller.id), { token: srv.adminToken });
    expect((await apiLogin(customer.apiKey)).status).toBe(201);
  });

  it("Kazoo's checks: the schema (no unknown method), a multi-factor configuration_id needs its account_id in the caller's tree", async () => {
    const unknown = await srv.request('POST', security(customer.id), { token: srv.adminToken, data: { auth_modules: { cb_magic: { enabled: true } } } });
    expect(unknown.status).toBe(400);
    const typed = await srv.request('POST', security(customer.id), { token: srv.adminToken, data: { auth_modules: { cb_user_auth: { enabled: 'nope' } } } });
    expect(typed.body.data).toHaveProperty(['auth_modules.cb_user_auth.enabled']);
    const noAccount = await srv.request('POST', security(customer.id), { token: srv.adminToken, data: { auth_modules: { cb_user_auth: { multi_factor: { enabled: true, configuration_id: 'abc' } } } } });
    expect(noAccount.status).toBe(400);
    expect(noAccount.body.data['auth_modules.cb_user_auth.account_id'].required.message).toBe('setting multi-factor configuration_id needs setting account_id');
    const customerToken = await srv.apiLogin(customer.apiKey);
    const foreign = await srv.request('POST', security(customer.id), {
      token: customerToken,
      data: { auth_modules: { cb_user_auth: { multi_factor: { enabled: true, configuration_id: 'abc', account_id: reseller.id, include_subaccounts: true } } } },
    });
    expect(foreign.status).toBe(200);
    const outside = await createSubAccount(srv, srv.master.account_id, 'Auth Outside');
    const refused = await srv.request('POST', security(customer.id), {
      token: customerToken,
      data: { auth_modules: { cb_user_auth: { multi_factor: { enabled: true, configuration_id: 'abc', account_id: outside.id } } } },
    });
    expect(refused.body.data['auth_modules.cb_user_auth.account_id'].required.message).toBe(`multi-factor account_id ${outside.id} is not in your account tree`);
  });

  it("a method's multi-factor configuration is named from the account's provider, else the system's default", async () => {
    const provider = await srv.request('PUT', `/v2/accounts/${customer.id}/multi_factor`, { token: srv.adminToken, data: { enabled: true, name: 'Office OTP', provider_name: 'otp' } });
    const r = await srv.request('POST', security(customer.id), {
      token: srv.adminToken,
      data: { auth_modules: { cb_user_auth: { multi_factor: { enabled: true, configuration_id: provider.body.data.id, account_id: customer.id } }, cb_api_auth: { multi_factor: { enabled: false } } } },
    });
    expect(r.body.data.auth_modules.cb_user_auth.multi_factor._read_only).toEqual({ name: 'Office OTP', provider_name: 'otp' });
    expect(r.body.data.auth_modules.cb_api_auth.multi_factor._read_only).toEqual({ name: 'Default System Provider', provider_name: 'duo' });
    // the settings sent back as answered: the names are the server's, not stored (the schema would refuse them)
    const back = await srv.request('POST', security(customer.id), { token: srv.adminToken, data: r.body.data });
    expect(back.status).toBe(200);
    const stored = await srv.request('GET', `/v2/accounts/${customer.id}/configs/crossbar.auth`, { token: srv.adminToken });
    expect(stored.body.data.auth_modules.cb_user_auth.multi_factor).toEqual({ enabled: true, configuration_id: provider.body.data.id, account_id: customer.id });
  });

  it("a user who is not an admin cannot change the account's login settings; another tenant cannot read them", async () => {
    const user = await srv.request('PUT', `/v2/accounts/${customer.id}/users`, { token: srv.adminToken, data: { username: 'clerk', password: 'clerk-pass', priv_level: 'user', first_name: 'C', last_name: 'K' } });
    expect(user.status).toBe(201);
    const clerk = await srv.userLogin('Auth Customer', 'clerk', 'clerk-pass');
    expect((await srv.request('GET', security(customer.id), { token: clerk })).status).toBe(200);
    const denied = await srv.request('POST', security(customer.id), { token: clerk, data: { auth_modules: {} } });
    expect(denied.status).toBe(403);
    // the clerk's login was logged (user logins' successes are, by default)
    const attempts = await srv.request('GET', security(customer.id, '/attempts?page_size=1'), { token: srv.adminToken });
    expect(attempts.body.data[0]).toMatchObject({ auth_module: 'cb_user_auth', status: 'success' });
    const other = await createSubAccount(srv, srv.master.account_id, 'Auth Stranger');
    expect((await srv.request('GET', security(customer.id), { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
  });
});
