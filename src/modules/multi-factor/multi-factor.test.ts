import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe("multi-factor providers (/v2/multi_factor, /v2/accounts/{id}/multi_factor) as Kazoo's cb_multi_factor keeps them", () => {
  let srv: TestServer;
  let shop: { id: string; apiKey: string };
  let shopToken: string;
  const mine = (path = '') => `/v2/accounts/${shop.id}/multi_factor${path}`;

  beforeAll(async () => {
    srv = await startTestServer();
    shop = await createSubAccount(srv, srv.master.account_id, 'MFA Shop');
    shopToken = await srv.apiLogin(shop.apiKey);
  });
  afterAll(() => srv?.close());

  it("the system's providers: Kazoo's disabled duo to begin with, changed and added by a super-duper admin only", async () => {
    const first = await srv.request('GET', '/v2/multi_factor', { token: shopToken });
    expect(first.body.data).toEqual([{ id: 'duo', enabled: false, name: 'System Default Provider', provider_name: 'duo', provider_type: 'multi_factor' }]);
    // a view's listing (cb_multi_factor system_summary/1 reads it with crossbar_view:load/3): paged
    expect(first.body).toMatchObject({ page_size: 1, start_key: expect.anything() });
    expect((await srv.request('PUT', '/v2/multi_factor', { token: shopToken, data: { enabled: true, name: 'OTP', provider_name: 'otp' } })).status).toBe(403);
    const otp = await srv.request('PUT', '/v2/multi_factor', { token: srv.adminToken, data: { enabled: true, name: 'OTP', provider_name: 'otp' } });
    expect(otp.status).toBe(201);
    const duo = await srv.request('PATCH', '/v2/multi_factor/duo', { token: srv.adminToken, data: { enabled: true } });
    expect(duo.body.data).toMatchObject({ id: 'duo', enabled: true, name: 'System Default Provider', provider_name: 'duo' });
    expect((await srv.request('GET', '/v2/multi_factor/duo', { token: srv.adminToken })).body.data.enabled).toBe(true);
    expect((await srv.request('GET', '/v2/multi_factor/duo', { token: shopToken })).status).toBe(403);
    const listed = (await srv.request('GET', '/v2/multi_factor', { token: shopToken })).body.data;
    expect(listed.map((p: any) => [p.provider_name, p.enabled])).toEqual(expect.arrayContaining([['duo', true], ['otp', true]]));
    expect((await srv.request('GET', `/v2/multi_factor/${'f'.repeat(32)}`, { token: srv.adminToken })).status).toBe(404);
  });

  it("an account's providers: created by the schema's rules, listed beside the system's, changed and deleted", async () => {
    const missing = await srv.request('PUT', mine(), { token: shopToken, data: { name: 'No provider' } });
    expect(missing.status).toBe(400);
    expect(missing.body.data).toHaveProperty(['provider_name', 'required']);
    const made = await srv.request('PUT', mine(), { token: shopToken, data: { enabled: true, name: 'Front desk OTP', provider_name: 'otp', settings: { issuer: 'Shop' } } });
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    const summary = await srv.request('GET', mine(), { token: shopToken });
    expect(summary.body.data.configured).toEqual([{ id, enabled: true, name: 'Front desk OTP', provider_name: 'otp', provider_type: 'multi_factor' }]);
    expect(summary.body.data.multi_factor_providers.map((p: any) => p.provider_name)).toContain('duo');
    const patched = await srv.request('PATCH', mine(`/${id}`), { token: shopToken, data: { enabled: false } });
    expect(patched.body.data).toMatchObject({ id, enabled: false, settings: { issuer: 'Shop' } });
    expect((await srv.request('GET', mine(`/${id}`), { token: shopToken })).body.data.enabled).toBe(false);
    expect((await srv.request('DELETE', mine(`/${id}`), { token: shopToken })).status).toBe(200);
    expect((await srv.request('GET', mine(`/${id}`), { token: shopToken })).status).toBe(404);
  });

  it('no login asks a second factor in tel: the multi-factor attempts stay empty while other logins are logged', async () => {
    const attempts = await srv.request('GET', mine('/attempts'), { token: shopToken });
    expect(attempts.status).toBe(200);
    expect(attempts.body.data).toEqual([]);
    expect((await srv.request('GET', mine('/attempts/202601-abc'), { token: shopToken })).status).toBe(404);
  });

  it("a user who is not an admin cannot change the account's providers; another tenant cannot see them", async () => {
    await srv.request('PUT', `/v2/accounts/${shop.id}/users`, { token: srv.adminToken, data: { username: 'mfa-clerk', password: 'clerk-pass', priv_level: 'user', first_name: 'C', last_name: 'K' } });
    const clerk = await srv.userLogin('MFA Shop', 'mfa-clerk', 'clerk-pass');
    expect((await srv.request('PUT', mine(), { token: clerk, data: { enabled: true, name: 'x', provider_name: 'otp' } })).status).toBe(403);
    const other = await createSubAccount(srv, srv.master.account_id, 'MFA Other');
    expect((await srv.request('GET', mine(), { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
  });
});
