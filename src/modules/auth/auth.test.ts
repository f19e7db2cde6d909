import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

describe('token authentication', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv.close());

  it('PUT /v2/user_auth with md5 credentials and account_name answers 201 with a token', async () => {
    const r = await srv.request('PUT', '/v2/user_auth', {
      data: { credentials: md5('admin:secret-pass'), account_name: 'Master' },
    });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('success');
    expect(r.body.auth_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(r.body.data).toMatchObject({ account_id: srv.master.account_id, owner_id: srv.master.user_id, method: 'cb_user_auth' });
  });

  it('PUT /v2/user_auth with sha1 credentials and account_realm works', async () => {
    const r = await srv.request('PUT', '/v2/user_auth', {
      data: { credentials: sha1('admin:secret-pass'), method: 'sha', account_realm: srv.master.realm.toUpperCase() },
    });
    expect(r.status).toBe(201);
    // `realm` is the same locator; a realm naming no account logs nobody in
    const byRealm = await srv.request('PUT', '/v2/user_auth', { data: { credentials: md5('admin:secret-pass'), realm: srv.master.realm } });
    expect(byRealm.status).toBe(201);
    expect(byRealm.body.data.account_id).toBe(srv.master.account_id);
    expect((await srv.request('PUT', '/v2/user_auth', { data: { credentials: md5('admin:secret-pass'), realm: 'nowhere.example' } })).status).toBe(401);
  });

  it('a wrong password, unknown account or missing locator all answer the same 401', async () => {
    const bodies = [];
    for (const data of [
      { credentials: md5('admin:wrong'), account_name: 'Master' },
      { credentials: md5('admin:secret-pass'), account_name: 'Nobody' },
      { credentials: md5('admin:secret-pass') },
    ]) {
      const r = await srv.request('PUT', '/v2/user_auth', { data });
      expect(r.status).toBe(401);
      bodies.push({ data: r.body.data, message: r.body.message, error: r.body.error, status: r.body.status });
    }
    expect(bodies[0]).toEqual({ data: { message: 'invalid credentials' }, message: 'invalid_credentials', error: '401', status: 'error' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('PUT /v2/api_auth with a wrong key answers 401 and with a good key 201', async () => {
    expect((await srv.request('PUT', '/v2/api_auth', { data: { api_key: 'f'.repeat(64) } })).status).toBe(401);
    const r = await srv.request('PUT', '/v2/api_auth', { data: { api_key: srv.master.api_key } });
    expect(r.status).toBe(201);
    expect(r.body.data.method).toBe('cb_api_auth');
  });

  it('tokens look like JWTs whose payload names the account, owner, method, exp and iss', async () => {
    const token = await srv.userLogin('Master', 'admin', 'secret-pass');
    const parts = token.split('.');
    expect(parts).toHaveLength(3);
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
    expect(payload).toMatchObject({ account_id: srv.master.account_id, owner_id: srv.master.user_id, method: 'cb_user_auth', iss: 'tel' });
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
    expect(payload.jti).toMatch(/^[0-9a-f]{32}$/);
  });

  it('GET /v2/token_auth answers the validity record with every field of the seed', async () => {
    const token = await srv.userLogin('Master', 'admin', 'secret-pass');
    const r = await srv.request('GET', '/v2/token_auth', { token });
    expect(r.status).toBe(200);
    for (const k of ['account_id', 'account_name', 'apps', 'id', 'is_reseller', 'language', 'method', 'owner_id', 'reseller_id']) {
      expect(r.body.data).toHaveProperty(k);
    }
    expect(r.body.data.id).toBe(token);
    expect(r.body.data.account_name).toBe('Master');
    expect(r.body.data.language).toBe('en-US');
    expect(r.body.auth_token).toBe(token);
  });

  it('DELETE /v2/token_auth revokes the token for good', async () => {
    const token = await srv.apiLogin(srv.master.api_key);
    const del = await srv.request('DELETE', '/v2/token_auth', { token });
    expect(del.status).toBe(200);
    expect(del.body.status).toBe('success');
    expect(del.body.request_id).toBeTruthy();
    expect(del.body.revision).toBeTruthy();
    const after = await srv.request('GET', '/v2/token_auth', { token });
    expect(after.status).toBe(401);
    expect(after.body.data).toEqual({ message: 'invalid credentials' });
  });

  it('an invalid token on GET /v2/token_auth answers the seed 401 body', async () => {
    const r = await srv.request('GET', '/v2/token_auth', { token: 'nope' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: 'error', error: '401', message: 'invalid_credentials', data: { message: 'invalid credentials' } });
  });

  it('a token idle longer than token_expiry_s is refused and removed; use keeps it alive', async () => {
    const set = await srv.request('POST', '/v2/system_configs/crossbar.auth', {
      token: srv.adminToken,
      data: { default: { token_expiry_s: 2 } },
    });
    expect(set.status).toBe(200);
    try {
      const sub = await createSubAccount(srv, srv.master.account_id, 'Expiry Co');
      const idle = await srv.apiLogin(sub.apiKey);
      const busy = await srv.apiLogin(sub.apiKey);
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 500));
        expect((await srv.request('GET', '/v2/token_auth', { token: busy })).status).toBe(200);
      }
      expect((await srv.request('GET', '/v2/token_auth', { token: idle })).status).toBe(401);
      const row = srv.core.db.prepare('SELECT 1 FROM tokens WHERE id = ?').get(idle);
      expect(row).toBeUndefined();
    } finally {
      srv.adminToken = await srv.apiLogin(srv.master.api_key);
      await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: {} } });
    }
  });

  it('tokens carry at least 128 random bits: two logins never share a token', async () => {
    const a = await srv.apiLogin(srv.master.api_key);
    const b = await srv.apiLogin(srv.master.api_key);
    expect(a).not.toBe(b);
  });

  it('GET /v2/user_auth/{token}: the token sent, described as a login answers it; another token in the path is a 401', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Token Lookup');
    await srv.request('PUT', `/v2/accounts/${sub.id}/users`, { token: srv.adminToken, data: { username: 'eve', password: 'pw-eve-1', first_name: 'Eve', last_name: 'Sub', priv_level: 'user' } });
    const token = await srv.userLogin('Token Lookup', 'eve', 'pw-eve-1');
    const r = await srv.request('GET', `/v2/user_auth/${token}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: token, account_id: sub.id, account_name: 'Token Lookup', method: 'cb_user_auth', reseller_id: srv.master.account_id, is_reseller: false });
    expect(r.body.data.apps).toEqual(expect.any(Array));
    const other = await srv.apiLogin(sub.apiKey);
    const mismatch = await srv.request('GET', `/v2/user_auth/${other}`, { token });
    expect(mismatch.status).toBe(401);
    expect(mismatch.text).not.toContain(sub.id);
    expect((await srv.request('GET', `/v2/user_auth/${token}`)).status).toBe(401);
  });

  it("a token is an HS256 JWT signed with the database's secret; it ends token_expiry_s after its login; an API key's names no owner", async () => {
    const secret = () => Buffer.from((srv.core.db.prepare("SELECT value FROM meta WHERE key = 'token_secret'").get() as { value: string }).value, 'hex');
    const signedBy = (token: string, key: Buffer) => {
      const [header, payload, signature] = token.split('.');
      return createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url') === signature;
    };
    const part = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i], 'base64url').toString());
    const before = Math.floor(Date.now() / 1000);
    const byKey = await srv.apiLogin(srv.master.api_key);
    const byUser = await srv.userLogin('Master', 'admin', 'secret-pass');
    const after = Math.floor(Date.now() / 1000);
    for (const token of [byKey, byUser]) {
      expect(part(token, 0)).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(secret()).toHaveLength(32);
      expect(signedBy(token, secret())).toBe(true);
      expect(part(token, 1).exp).toBeGreaterThanOrEqual(before + 3600);
      expect(part(token, 1).exp).toBeLessThanOrEqual(after + 3600);
    }
    expect(Object.keys(part(byKey, 1)).sort()).toEqual(['account_id', 'exp', 'iss', 'jti', 'method']);
    expect(part(byUser, 1).owner_id).toBe(srv.master.user_id);
    await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: { token_expiry_s: 120 } } });
    try {
      const at = Math.floor(Date.now() / 1000);
      const exp = part(await srv.apiLogin(srv.master.api_key), 1).exp;
      expect(exp - at).toBeGreaterThanOrEqual(120);
      expect(exp - at).toBeLessThanOrEqual(121);
    } finally {
      await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: {} } });
    }
  });

  it("a login answers the user's language, else its account's, else en-US; priv_level for a user's login only; is_master_account for the master's", async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Language Co');
    const users = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${sub.id}/users`, { token: srv.adminToken, data: { password: 'pw-lang-1', first_name: 'L', last_name: 'Co', ...data } });
    expect((await users({ username: 'german', language: 'de-DE', priv_level: 'user' })).status).toBe(201);
    expect((await users({ username: 'plain', priv_level: 'admin' })).status).toBe(201);
    const login = async (username: string) => (await srv.request('PUT', '/v2/user_auth', { data: { credentials: md5(`${username}:pw-lang-1`), account_name: 'Language Co' } })).body.data;
    const byKey = async () => (await srv.request('PUT', '/v2/api_auth', { data: { api_key: sub.apiKey } })).body.data;
    expect(await login('plain')).toMatchObject({ language: 'en-US', priv_level: 'admin', is_master_account: false, is_reseller: false, reseller_id: srv.master.account_id });
    expect((await srv.request('PATCH', `/v2/accounts/${sub.id}`, { token: srv.adminToken, data: { language: 'fr-FR' } })).status).toBe(200);
    expect(await login('german')).toMatchObject({ language: 'de-DE', priv_level: 'user', owner_id: expect.any(String) });
    expect(await login('plain')).toMatchObject({ language: 'fr-FR', priv_level: 'admin' });
    const key = await byKey();
    expect(key).toMatchObject({ language: 'fr-FR', owner_id: null, is_master_account: false });
    expect(key).not.toHaveProperty('priv_level');
    const master = (await srv.request('PUT', '/v2/api_auth', { data: { api_key: srv.master.api_key } })).body.data;
    expect(master).toMatchObject({ account_id: srv.master.account_id, is_master_account: true, owner_id: null });
  });
});

