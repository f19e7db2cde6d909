import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { nowGregorian, unixMsToGregorian } from '../../util/time.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/**
 * What a login leaves in its account's attempts log (`security/attempts`), as the `auth_modules`
 * settings of the account, its ancestors up to its reseller and the system decide. R is a reseller
 * under the master, X its customer, Y a customer of X.
 */
describe("the login attempts log and the settings that decide what it keeps", () => {
  let srv: TestServer;
  let R: { id: string; apiKey: string };
  let X: { id: string; apiKey: string };
  let Y: { id: string; apiKey: string };

  const attempts = async (account: string, query = '') => {
    const r = await srv.request('GET', `/v2/accounts/${account}/security/attempts${query}`, { token: srv.adminToken });
    expect(r.status, r.text).toBe(200);
    return r;
  };
  const count = async (account: string) => (await attempts(account)).body.data.length;
  const security = (account: string, auth_modules: Record<string, unknown>) =>
    srv.request('POST', `/v2/accounts/${account}/security`, { token: srv.adminToken, data: { auth_modules } });
  const userLogin = (account: string, password: string, headers: Record<string, string> = {}, locator: Record<string, string> = {}) =>
    srv.request('PUT', '/v2/user_auth', { data: { credentials: md5(`bob:${password}`), account_name: account, ...locator }, headers });
  const keyLogin = (apiKey: string) => srv.request('PUT', '/v2/api_auth', { data: { api_key: apiKey } });

  beforeAll(async () => {
    srv = await startTestServer();
    R = await createSubAccount(srv, srv.master.account_id, 'Log Reseller');
    expect((await srv.request('PUT', `/v2/accounts/${R.id}/reseller`, { token: srv.adminToken })).status).toBe(201);
    X = await createSubAccount(srv, R.id, 'Log X');
    Y = await createSubAccount(srv, X.id, 'Log Y');
    for (const account of [X.id, Y.id]) {
      const r = await srv.request('PUT', `/v2/accounts/${account}/users`, { token: srv.adminToken, data: { username: 'bob', password: 'pw-bob-1', first_name: 'Bob', last_name: 'Log', priv_level: 'user' } });
      expect(r.status, r.text).toBe(201);
    }
  });
  afterAll(() => srv?.close());

  it("a user login's failure and success are logged with the address, the client and the request; an API key's success is not", async () => {
    const failed = await userLogin('Log X', 'wrong', { 'User-Agent': `probe/${'x'.repeat(300)}` });
    expect(failed.status).toBe(401);
    const right = await userLogin('Log X', 'pw-bob-1', { 'User-Agent': 'tel-test/1' });
    expect(right.status).toBe(201);
    expect((await keyLogin(X.apiKey)).status).toBe(201);
    const list = await attempts(X.id);
    expect(list.body.data).toEqual([
      { id: expect.any(String), auth_type: 'jwt_auth_token', auth_module: 'cb_user_auth', status: 'success', message: 'authentication resulted in token creation', client_ip: '127.0.0.1', timestamp: expect.any(Number) },
      { id: expect.any(String), auth_type: 'jwt_auth_token', auth_module: 'cb_user_auth', status: 'failed', message: 'invalid credentials', client_ip: '127.0.0.1', timestamp: expect.any(Number) },
    ]);
    expect(Math.abs(list.body.data[0].timestamp - nowGregorian())).toBeLessThan(60);
    const one = async (id: string) => (await srv.request('GET', `/v2/accounts/${X.id}/security/attempts/${id}`, { token: srv.adminToken })).body.data;
    expect(await one(list.body.data[1].id)).toMatchObject({
      id: list.body.data[1].id,
      crossbar_request_id: failed.headers.get('x-request-id'),
      client_headers: { 'user-agent': `probe/${'x'.repeat(250)}` },
    });
    expect(await one(list.body.data[0].id)).toMatchObject({ crossbar_request_id: right.headers.get('x-request-id'), client_headers: { 'user-agent': 'tel-test/1' } });
    // another account's attempt is not found under this one
    expect((await srv.request('GET', `/v2/accounts/${Y.id}/security/attempts/${list.body.data[0].id}`, { token: srv.adminToken })).status).toBe(404);
  });

  it('a failure is logged where the locator names one account only, not where it names two', async () => {
    const realmOfY = (await srv.request('GET', `/v2/accounts/${Y.id}`, { token: srv.adminToken })).body.data.realm;
    const [x, y] = [await count(X.id), await count(Y.id)];
    expect((await userLogin('Log X', 'wrong', {}, { account_realm: realmOfY })).status).toBe(401);
    expect([await count(X.id), await count(Y.id)]).toEqual([x, y]);
    expect((await userLogin('Log Y', 'wrong')).status).toBe(401);
    expect([await count(X.id), await count(Y.id)]).toEqual([x, y + 1]);
  });

  it("the account's own settings win over its ancestors' up to its reseller, theirs over the system's; those above the reseller never apply", async () => {
    const loggedKeyLogins = async (account: { id: string; apiKey: string }) => {
      const before = await count(account.id);
      expect((await keyLogin(account.apiKey)).status).toBe(201);
      return (await count(account.id)) - before;
    };
    const logSuccess = (on: boolean) => ({ cb_api_auth: { log_successful_attempts: on } });
    try {
      // the system's own auth_modules replace the built-in ones
      const system = await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: { auth_modules: logSuccess(true) } } });
      expect(system.status, system.text).toBe(200);
      expect(await loggedKeyLogins(Y)).toBe(1);
      await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: {} } });
      expect(await loggedKeyLogins(Y)).toBe(0);
      // the master is above Y's reseller; it is the reseller of its direct customers
      expect((await security(srv.master.account_id, logSuccess(true))).status).toBe(200);
      expect(await loggedKeyLogins({ id: srv.master.account_id, apiKey: srv.master.api_key })).toBe(1);
      expect(await loggedKeyLogins(await createSubAccount(srv, srv.master.account_id, 'Log Direct'))).toBe(1);
      expect(await loggedKeyLogins(Y)).toBe(0);
      expect((await security(R.id, logSuccess(true))).status).toBe(200);
      expect(await loggedKeyLogins(Y)).toBe(1);
      expect(await loggedKeyLogins(X)).toBe(1);
      expect((await security(X.id, logSuccess(false))).status).toBe(200);
      expect(await loggedKeyLogins(Y)).toBe(0);
      expect(await loggedKeyLogins(R)).toBe(1);
      // what Y inherits is X's settings as they apply to X; a reseller inherits the system's
      const inherited = async (account: string) => (await srv.request('GET', `/v2/accounts/${account}/security`, { token: srv.adminToken })).body.data.inherited_config.auth_modules.cb_api_auth;
      expect(await inherited(Y.id)).toMatchObject({ enabled: true, log_successful_attempts: false });
      expect(await inherited(X.id)).toMatchObject({ enabled: true, log_successful_attempts: true });
      expect(await inherited(R.id)).toMatchObject({ enabled: true, log_successful_attempts: false });
      expect((await security(Y.id, logSuccess(true))).status).toBe(200);
      expect(await loggedKeyLogins(Y)).toBe(1);
      // failures too: X stops logging its users' failed logins, and Y inherits that
      expect((await security(X.id, { cb_user_auth: { log_failed_attempts: false } })).status).toBe(200);
      const y = await count(Y.id);
      expect((await userLogin('Log Y', 'wrong')).status).toBe(401);
      expect((await userLogin('Log X', 'wrong')).status).toBe(401);
      expect(await count(Y.id)).toBe(y);
    } finally {
      for (const account of [srv.master.account_id, R.id, X.id, Y.id]) await srv.request('DELETE', `/v2/accounts/${account}/security`, { token: srv.adminToken });
    }
  });

  it("a method an ancestor disables refuses the right password, and logs why", async () => {
    expect((await security(R.id, { cb_user_auth: { enabled: false } })).status).toBe(200);
    try {
      const before = await count(Y.id);
      const r = await userLogin('Log Y', 'pw-bob-1');
      expect(r.status).toBe(401);
      expect(r.body.data).toEqual({ message: 'invalid credentials' });
      const list = (await attempts(Y.id)).body.data;
      expect(list).toHaveLength(before + 1);
      expect(list[0]).toMatchObject({ auth_module: 'cb_user_auth', status: 'failed', message: 'authentication module cb_user_auth is disabled' });
      // API keys are another method
      expect((await keyLogin(Y.apiKey)).status).toBe(201);
    } finally {
      await srv.request('DELETE', `/v2/accounts/${R.id}/security`, { token: srv.adminToken });
    }
    expect((await userLogin('Log Y', 'pw-bob-1')).status).toBe(201);
  });

  it('attempts older than a month go when the account logs its next; the listing pages newest first within created_from and created_to', async () => {
    const Z = await createSubAccount(srv, srv.master.account_id, 'Log Z');
    const DAY = 86_400_000;
    const second = (ms: number) => Math.floor(ms / 1000) * 1000;
    const now = second(Date.now());
    const insert = (id: string, created: number, authType = 'jwt_auth_token') =>
      srv.core.db
        .prepare('INSERT INTO login_attempts (id, account_id, auth_type, created, doc) VALUES (?, ?, ?, ?, ?)')
        .run(id, Z.id, authType, created, JSON.stringify({ auth_type: authType, status: 'failed', auth_module: 'cb_user_auth', message: 'old', timestamp: unixMsToGregorian(created) }));
    insert('past-month', now - 31 * DAY - 60_000);
    insert('within-month', now - 31 * DAY + 60_000);
    insert('last-week', now - 7 * DAY);
    insert('last-week-late', now - 7 * DAY + 999);
    insert('second-factor', now - 2 * DAY, 'multi_factor');
    const ids = async (query = '') => (await attempts(Z.id, query)).body.data.map((a: { id: string }) => a.id);
    expect(await ids()).toEqual(['second-factor', 'last-week-late', 'last-week', 'within-month', 'past-month']);
    // a user of the account fails once
    expect((await srv.request('PUT', `/v2/accounts/${Z.id}/users`, { token: srv.adminToken, data: { username: 'bob', password: 'pw-bob-1', first_name: 'Bob', last_name: 'Z', priv_level: 'user' } })).status).toBe(201);
    expect((await userLogin('Log Z', 'wrong')).status).toBe(401);
    const all = await ids();
    expect(all.slice(1)).toEqual(['second-factor', 'last-week-late', 'last-week', 'within-month']);
    // the window's bounds are inclusive, in Gregorian seconds: its first millisecond to its last
    const week = unixMsToGregorian(now - 7 * DAY);
    expect(await ids(`?created_from=${week}`)).toEqual(all.slice(0, 4));
    expect(await ids(`?created_to=${week}`)).toEqual(['last-week-late', 'last-week', 'within-month']);
    expect(await ids(`?created_from=${week}&created_to=${week}`)).toEqual(['last-week-late', 'last-week']);
    const first = await attempts(Z.id, '?page_size=2');
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual(all.slice(0, 2));
    const next = await attempts(Z.id, `?page_size=2&start_key=${encodeURIComponent(first.body.next_start_key)}`);
    expect(next.body.data.map((a: { id: string }) => a.id)).toEqual(all.slice(2, 4));
    // the multi-factor log lists its own kind only
    const mf = (path = '') => srv.request('GET', `/v2/accounts/${Z.id}/multi_factor/attempts${path}`, { token: srv.adminToken });
    expect((await mf()).body.data.map((a: { id: string }) => a.id)).toEqual(['second-factor']);
    expect((await mf('/second-factor')).body.data).toMatchObject({ id: 'second-factor', auth_type: 'multi_factor' });
    expect((await mf('/last-week')).status).toBe(404);
  });
});
