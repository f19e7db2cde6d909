import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { WEBHOOKS_APP_ID } from '../apps-store/service.js';

describe('auth/tokeninfo (a token looked at, not sent as one)', () => {
  let srv: TestServer;
  let token: string;
  beforeAll(async () => {
    srv = await startTestServer();
    token = await srv.userLogin('Master', 'admin', 'secret-pass');
  });
  afterAll(() => srv?.close());

  const expectInfo = (body: any, owner: string | null, method: string) => {
    const now = Math.floor(Date.now() / 1000);
    expect(body.status).toBe('success');
    expect(body.data).toMatchObject({
      account_id: srv.master.account_id,
      account_name: 'Master',
      owner_id: owner,
      method,
      language: 'en-US',
      is_master_account: true,
      apps: [{ id: WEBHOOKS_APP_ID, name: 'webhooks', api_url: `${srv.url}/v2/`, label: 'Webhooks' }],
    });
    // an hour without use by default
    expect(body.data.exp).toBeGreaterThanOrEqual(now + 3590);
    expect(body.data.exp).toBeLessThanOrEqual(now + 3601);
  };

  it('POST with data.token and no X-Auth-Token answers 200, the token echoed as auth_token', async () => {
    const r = await srv.request('POST', '/v2/auth/tokeninfo', { data: { token } });
    expect(r.status).toBe(200);
    expect(r.body.auth_token).toBe(token);
    expectInfo(r.body, srv.master.user_id, 'cb_user_auth');
  });

  it('GET ?token= answers the same; an API-key token has no owner', async () => {
    const r = await srv.request('GET', `/v2/auth/tokeninfo?token=${encodeURIComponent(token)}`);
    expect(r.status).toBe(200);
    expectInfo(r.body, srv.master.user_id, 'cb_user_auth');
    const byKey = await srv.request('GET', `/v2/auth/tokeninfo?token=${encodeURIComponent(srv.adminToken)}`);
    expectInfo(byKey.body, null, 'cb_api_auth');
  });

  it('an unknown or revoked token is the 401 every bad token gets', async () => {
    const revoked = await srv.userLogin('Master', 'admin', 'secret-pass');
    expect((await srv.request('DELETE', '/v2/token_auth', { token: revoked })).status).toBe(200);
    for (const t of ['not-a-token', `${token}x`, revoked]) {
      const post = await srv.request('POST', '/v2/auth/tokeninfo', { data: { token: t } });
      expect(post.status).toBe(401);
      expect(post.body).toMatchObject({ status: 'error', error: '401', message: 'invalid_credentials', data: { message: 'invalid credentials' } });
      expect(post.body.auth_token).toBeUndefined();
      expect((await srv.request('GET', `/v2/auth/tokeninfo?token=${encodeURIComponent(t)}`)).status).toBe(401);
    }
  });

  it('no token to look at is a 404, as Kazoo answers it; other methods 405', async () => {
    const post = await srv.request('POST', '/v2/auth/tokeninfo', { data: {} });
    expect(post.status).toBe(404);
    expect(post.body).toMatchObject({ status: 'error', error: '404', message: 'missing token in request' });
    const get = await srv.request('GET', '/v2/auth/tokeninfo');
    expect(get.status).toBe(404);
    expect(get.body.message).toBe('missing token in params');
    const empty = await srv.request('GET', '/v2/auth/tokeninfo?token=');
    expect(empty.status).toBe(404);
    expect(empty.body.message).toBe('missing token in params');
    expect((await srv.request('POST', '/v2/auth/tokeninfo', { data: { token: '' } })).body.message).toBe('missing token in request');
    const put = await srv.request('PUT', '/v2/auth/tokeninfo', { data: { token } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST, GET');
  });

  it('a body that is not JSON is still the 400 first', async () => {
    const r = await srv.request('POST', '/v2/auth/tokeninfo', { body: '{"data":' });
    expect(r.status).toBe(400);
  });
});
