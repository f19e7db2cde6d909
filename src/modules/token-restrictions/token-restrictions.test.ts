import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';

/** Sends a path exactly as written (fetch would resolve `..` and re-encode before sending). */
function rawRequest(base: string, method: string, path: string, token: string): Promise<{ status: number; body: any }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { 'X-Auth-Token': token } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SEED_403 = { cause: 'access denied by token restrictions', message: 'forbidden' };

describe('token restrictions over HTTP', () => {
  let srv: TestServer;
  let a: { id: string; apiKey: string };
  let child: { id: string; apiKey: string };
  let sibling: { id: string; apiKey: string };
  let adminUser: string;
  let plainUser: string;

  const admin = () => srv.adminToken;
  const setTemplate = (accountId: string, restrictions: unknown, token = admin()) =>
    srv.request('POST', `/v2/accounts/${accountId}/token_restrictions`, { token, data: { restrictions } });
  const clearTemplate = (accountId: string) => srv.request('DELETE', `/v2/accounts/${accountId}/token_restrictions`, { token: admin() });

  beforeAll(async () => {
    srv = await startTestServer();
    a = await createSubAccount(srv, srv.master.account_id, 'Restricted Co');
    child = await createSubAccount(srv, a.id, 'Restricted Child');
    sibling = await createSubAccount(srv, srv.master.account_id, 'Sibling Co');
    const mk = async (username: string, priv_level: string) => {
      const r = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token: admin(), data: { username, password: 'pw-123456', priv_level, first_name: 'F', last_name: 'L' } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    adminUser = await mk('boss', 'admin');
    plainUser = await mk('clerk', 'user');
  });
  afterAll(async () => srv.close());

  describe('the account template and its endpoints', () => {
    it('GET answers 404 bad_identifier while the account has no template', async () => {
      const r = await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: admin() });
      expect(r.status).toBe(404);
      expect(r.body.data).toEqual({ cause: 'token_restrictions', message: 'bad identifier' });
    });

    it('POST stores a template and answers data.restrictions; GET answers the same; DELETE answers what it removed', async () => {
      const restrictions = { cb_api_auth: { _: { devices: [{ rules: { '#': ['GET'] } }] } } };
      const post = await setTemplate(a.id, restrictions);
      expect(post.status).toBe(200);
      expect(post.body.data).toEqual({ restrictions });
      const get = await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: admin() });
      expect(get.body.data).toEqual({ restrictions });
      const del = await clearTemplate(a.id);
      expect(del.status).toBe(200);
      expect(del.body.data).toEqual({ restrictions, _read_only: { deleted: true } });
      expect((await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: admin() })).status).toBe(404);
      expect((await clearTemplate(a.id)).status).toBe(404);
    });

    it('a single rule object instead of an array is accepted and kept as written', async () => {
      const restrictions = { _: { _: { devices: { rules: { '#': ['GET'] } } } } };
      const r = await setTemplate(a.id, restrictions);
      expect(r.status).toBe(200);
      expect(r.body.data.restrictions).toEqual(restrictions);
      await clearTemplate(a.id);
    });

    it('POST validates keys and verbs and answers Kazoo-shaped 400 errors', async () => {
      const r = await setTemplate(a.id, { 'cb-api': { _: {} }, _: { _: { devices: [{ allowed_accounts: ['_', '_'], rules: { 'a b': ['GET'], '#': ['FETCH'] } }] } } });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('validation error');
      expect(r.body.data['restrictions.cb-api'].pattern).toMatchObject({ message: "Failed to match pattern '^\\w+$'", value: 'cb-api' });
      expect(r.body.data['restrictions._._.devices.0.allowed_accounts'].uniqueItems.message).toBe('List of items is not unique');
      expect(r.body.data['restrictions._._.devices.0.rules.a b'].pattern.message).toBe("Failed to match pattern '^[\\w/#*]+$'");
      expect(r.body.data['restrictions._._.devices.0.rules.#.0'].enum).toMatchObject({ message: 'Value not found in enumerated list of values', value: 'FETCH' });
      expect((await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: admin() })).status).toBe(404);
    });

    it('POST without restrictions is a 400 required', async () => {
      const r = await srv.request('POST', `/v2/accounts/${a.id}/token_restrictions`, { token: admin(), data: {} });
      expect(r.status).toBe(400);
      expect(r.body.data.restrictions.required.message).toBe('Field is required but missing');
    });

    it('data.restrictions on the account document is the same template, validated the same way', async () => {
      const account = await srv.request('GET', `/v2/accounts/${a.id}`, { token: admin() });
      const restrictions = { _: { _: { users: [{ rules: { '#': ['GET'] } }] } } };
      const post = await srv.request('POST', `/v2/accounts/${a.id}`, { token: admin(), data: { ...account.body.data, restrictions } });
      expect(post.status).toBe(200);
      const get = await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: admin() });
      expect(get.body.data).toEqual({ restrictions });
      const token = await srv.apiLogin(a.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(403);
      const bad = await srv.request('PATCH', `/v2/accounts/${a.id}`, { token: admin(), data: { restrictions: { _: { _: { users: [{ rules: { '#': ['READ'] } }] } } } } });
      expect(bad.status).toBe(400);
      expect(bad.body.data['restrictions._._.users.0.rules.#.0'].enum).toBeDefined();
      await clearTemplate(a.id);
      const after = await srv.request('GET', `/v2/accounts/${a.id}`, { token: admin() });
      expect(after.body.data.restrictions).toBeUndefined();
      expect(after.body.data.name).toBe('Restricted Co');
    });

    it('changing the template needs an admin of the account: a plain user gets 403, an admin user and an API-key token may', async () => {
      const restrictions = { _: { _: { _: [{ rules: { '#': ['_'] } }] } } };
      const clerk = await srv.userLogin('Restricted Co', 'clerk', 'pw-123456');
      const refused = await setTemplate(a.id, restrictions, clerk);
      expect(refused.status).toBe(403);
      expect(refused.body.data.cause).toBe('changing token restrictions needs an admin of the account');
      const viaDoc = await srv.request('PATCH', `/v2/accounts/${a.id}`, { token: clerk, data: { restrictions } });
      expect(viaDoc.status).toBe(403);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: clerk })).status).toBe(404);

      const boss = await srv.userLogin('Restricted Co', 'boss', 'pw-123456');
      expect((await setTemplate(a.id, restrictions, boss)).status).toBe(200);
      const clerkDelete = await srv.request('DELETE', `/v2/accounts/${a.id}/token_restrictions`, { token: clerk });
      expect(clerkDelete.status).toBe(403);
      const keyToken = await srv.apiLogin(a.apiKey);
      expect((await srv.request('DELETE', `/v2/accounts/${a.id}/token_restrictions`, { token: keyToken })).status).toBe(200);
    });

    it('a plain user may not make themselves or anyone an admin, so the template rule cannot be sidestepped', async () => {
      const clerk = await srv.userLogin('Restricted Co', 'clerk', 'pw-123456');
      const own = `/v2/accounts/${a.id}/users/${plainUser}`;
      const raise = await srv.request('PATCH', own, { token: clerk, data: { priv_level: 'admin' } });
      expect(raise.status).toBe(403);
      expect(raise.body.data.cause).toBe('changing priv_level needs an admin of the account');
      const whole = (await srv.request('GET', own, { token: clerk })).body.data;
      expect(whole.priv_level).toBe('user');
      expect((await srv.request('POST', own, { token: clerk, data: { ...whole, priv_level: 'admin' } })).status).toBe(403);
      const create = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token: clerk, data: { username: 'sneaky', password: 'pw-123456', first_name: 'F', last_name: 'L', priv_level: 'admin' } });
      expect(create.status).toBe(403);
      // A plain user may still edit their own document (posted back whole), never an admin's.
      expect((await srv.request('POST', own, { token: clerk, data: { ...whole, first_name: 'Clerk' } })).status).toBe(200);
      const bossDoc = (await srv.request('GET', `/v2/accounts/${a.id}/users/${adminUser}`, { token: clerk })).body.data;
      expect((await srv.request('POST', `/v2/accounts/${a.id}/users/${adminUser}`, { token: clerk, data: { ...bossDoc, last_name: 'Boss' } })).status).toBe(403);
      expect((await srv.request('GET', own, { token: admin() })).body.data.priv_level).toBe('user');
      const boss = await srv.userLogin('Restricted Co', 'boss', 'pw-123456');
      const promoted = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token: boss, data: { username: 'deputy', password: 'pw-123456', first_name: 'F', last_name: 'L', priv_level: 'admin' } });
      expect(promoted.status).toBe(201);
    });

    it('a plain user may still edit other fields of the account document', async () => {
      const clerk = await srv.userLogin('Restricted Co', 'clerk', 'pw-123456');
      const r = await srv.request('PATCH', `/v2/accounts/${a.id}`, { token: clerk, data: { timezone: 'Europe/Paris' } });
      expect(r.status).toBe(200);
    });
  });

  describe('choosing rules at login', () => {
    it('the account template applies to tokens issued after it is set, by method and privilege level', async () => {
      await setTemplate(a.id, {
        cb_user_auth: {
          admin: { _: [{ rules: { '#': ['_'] } }] },
          user: { users: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['GET'] } }] },
        },
        _: { admin: { devices: [{ rules: { '#': ['GET'] } }] } },
      });
      try {
        const clerk = await srv.userLogin('Restricted Co', 'clerk', 'pw-123456');
        expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token: clerk })).status).toBe(200);
        expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: clerk })).status).toBe(403);

        const boss = await srv.userLogin('Restricted Co', 'boss', 'pw-123456');
        expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: boss })).status).toBe(200);
        expect((await srv.request('PUT', `/v2/accounts/${a.id}/devices`, { token: boss, data: { name: 'd' } })).status).toBe(201);

        // api_auth has no user: the admin level under `_`.
        const key = await srv.apiLogin(a.apiKey);
        expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: key })).status).toBe(200);
        expect((await srv.request('PUT', `/v2/accounts/${a.id}/devices`, { token: key, data: { name: 'd' } })).status).toBe(403);
        expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token: key })).status).toBe(403);
      } finally {
        await clearTemplate(a.id);
      }
    });

    it('later template changes do not alter tokens already issued', async () => {
      await setTemplate(a.id, { _: { _: { users: [{ rules: { '#': ['GET'] } }] } } });
      const early = await srv.apiLogin(a.apiKey);
      await setTemplate(a.id, { _: { _: { devices: [{ rules: { '#': ['GET'] } }] } } });
      const late = await srv.apiLogin(a.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token: early })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: early })).status).toBe(403);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token: late })).status).toBe(403);
      await clearTemplate(a.id);
      const free = await srv.apiLogin(a.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token: free })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: early })).status).toBe(403);
    });

    it('the system template applies when the account has none, under its Kazoo alias too, with default_priv_level', async () => {
      const set = await srv.request('POST', '/v2/system_configs/crossbar.token_restrictions', {
        token: admin(),
        data: {
          default: {
            default_priv_level: 'user',
            cb_api_auth: { admin: { _: [{ rules: { '#': ['_'] } }] }, user: { users: [{ rules: { '#': ['GET'] } }] } },
          },
        },
      });
      expect(set.status).toBe(200);
      try {
        const key = await srv.apiLogin(sibling.apiKey);
        expect((await srv.request('GET', `/v2/accounts/${sibling.id}/users`, { token: key })).status).toBe(200);
        expect((await srv.request('GET', `/v2/accounts/${sibling.id}/devices`, { token: key })).status).toBe(403);
        // The account template, where the method has an entry, wins over the system template.
        await setTemplate(sibling.id, { cb_api_auth: { _: { devices: [{ rules: { '#': ['GET'] } }] } } });
        const key2 = await srv.apiLogin(sibling.apiKey);
        expect((await srv.request('GET', `/v2/accounts/${sibling.id}/devices`, { token: key2 })).status).toBe(200);
        expect((await srv.request('GET', `/v2/accounts/${sibling.id}/users`, { token: key2 })).status).toBe(403);
        await clearTemplate(sibling.id);
      } finally {
        await srv.request('DELETE', '/v2/system_configs/api.token_restrictions', { token: admin() });
      }
    });

    it('the system template is validated on write like an account template, over HTTP and offline', async () => {
      const path = '/v2/system_configs/api.token_restrictions';
      const bad = await srv.request('POST', path, {
        token: admin(),
        data: { default: { default_priv_level: 'no such level', cb_api_auth: { _: { devices: { rulez: { '#': ['GET'] } }, users: [{ rules: { '#': ['get'] } }] } } } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('validation error');
      expect(Object.keys(bad.body.data).sort()).toEqual([
        'default.cb_api_auth._.devices.rulez',
        'default.cb_api_auth._.users.0.rules.#.0',
        'default.default_priv_level',
      ]);
      expect((await srv.request('GET', path, { token: admin() })).status).toBe(404);
      const offline = await runTel(['config', 'set', 'api.token_restrictions', '_', '{"_":{"devices":"GET"}}', '--db', srv.dbFile]);
      expect(offline.code).toBe(1);
      expect(offline.stderr).toContain('default._._.devices');
      expect((await srv.request('GET', path, { token: admin() })).status).toBe(404);
      const flat = { ui_metadata: { version: '4.3', ui: 'monster-ui', origin: 'common' }, _: { _: { users: [{ rules: { '#': ['GET'] } }] } } };
      expect((await srv.request('POST', path, { token: admin(), data: flat })).status).toBe(200);
      expect((await srv.request('DELETE', path, { token: admin() })).status).toBe(200);
    });

    it('removing the system template frees the tokens issued afterwards, not those issued before', async () => {
      const cfg = { token: admin(), data: { default: { _: { _: { users: [{ rules: { '#': ['GET'] } }] } } } } };
      expect((await srv.request('POST', '/v2/system_configs/api.token_restrictions', cfg)).status).toBe(200);
      const before = await srv.apiLogin(sibling.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${sibling.id}/devices`, { token: before })).status).toBe(403);
      expect((await srv.request('DELETE', '/v2/system_configs/api.token_restrictions', { token: admin() })).status).toBe(200);
      const after = await srv.apiLogin(sibling.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${sibling.id}/devices`, { token: after })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${sibling.id}/devices`, { token: before })).status).toBe(403);
    });

    it('a template whose levels do not match the token leaves it unrestricted', async () => {
      await setTemplate(a.id, { cb_api_auth: { operator: { users: [] } } });
      const key = await srv.apiLogin(a.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token: key })).status).toBe(200);
      await clearTemplate(a.id);
    });

    it('super-duper admin tokens are never restricted, even under a template that matches them', async () => {
      await setTemplate(srv.master.account_id, { _: { _: { users: [{ rules: { '/': [] } }] } } });
      try {
        const token = await srv.apiLogin(srv.master.api_key);
        expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(200);
        const { tokenKey } = await import('../auth/service.js');
        const row = srv.core.db.prepare('SELECT restrictions FROM tokens WHERE id = ?').get(tokenKey(token)) as { restrictions: string | null };
        expect(row.restrictions).toBeNull();
      } finally {
        await clearTemplate(srv.master.account_id);
      }
    });
  });

  describe('enforcement', () => {
    let token: string;
    beforeAll(async () => {
      await setTemplate(a.id, {
        _: {
          _: {
            users: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['GET'] } }],
            devices: [
              { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } },
              { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET'], '*': [] } },
            ],
            accounts: { rules: { '*/api_key': [], '#': ['GET'] } },
            token_auth: [{ rules: { '/': ['GET'] } }],
          },
        },
      });
      token = await srv.apiLogin(a.apiKey);
      await clearTemplate(a.id);
    });

    it('a denied request answers the seed 403 body exactly, and says which step failed', async () => {
      const r = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token, data: { username: 'x', password: 'y', first_name: 'F', last_name: 'L' } });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ status: 'error', error: '403', message: 'forbidden', auth_token: token });
      expect(r.body.data).toMatchObject(SEED_403);
      expect(r.body.data.step).toBe('verb');
      expect(r.body.data.reason).toBe('Verb: key `#` allows GET, not PUT.');
      for (const k of ['node', 'request_id', 'timestamp', 'version']) expect(r.body).toHaveProperty(k);
      expect(r.headers.get('content-type')).toBe('application/json');
    });

    it.each([
      ['an endpoint without an entry or a catch-all', 'GET', 'vmboxes', 'endpoint'],
      ['an account no rule object allows', 'GET', 'users@child', 'account'],
      ['arguments no key matches', 'GET', 'devices/x/y', 'arguments'],
      ['an empty verb list', 'GET', 'devices/0123456789abcdef0123456789abcdef', 'verb'],
    ])('%s fails at the step it names', async (_name, method, where, step) => {
      const [tail, on] = where.split('@');
      const account = on === 'child' ? child.id : a.id;
      const r = await srv.request(method, `/v2/accounts/${account}/${tail}`, { token });
      expect(r.status).toBe(403);
      expect(r.body.data).toMatchObject({ ...SEED_403, step });
    });

    it('allows what the rules allow, on its own account and on a descendant', async () => {
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(200);
      expect((await srv.request('PUT', `/v2/accounts/${child.id}/devices`, { token, data: { name: 'c' } })).status).toBe(201);
      expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(200);
    });

    it('restrictions answer before any lookup: a missing document or account is a 403, not a 404', async () => {
      const missingDoc = await srv.request('DELETE', `/v2/accounts/${a.id}/users/0123456789abcdef0123456789abcdef`, { token });
      expect(missingDoc.status).toBe(403);
      expect(missingDoc.body.data.cause).toBe(SEED_403.cause);
      const missingAccount = await srv.request('PUT', '/v2/accounts/ffffffffffffffffffffffffffffffff/devices', { token, data: {} });
      expect(missingAccount.status).toBe(403);
    });

    it('a token with restrictions may not reach a sibling account even where the rules say _', async () => {
      const r = await srv.request('GET', `/v2/accounts/${sibling.id}`, { token });
      expect(r.status).toBe(403);
    });

    describe('path tricks never bypass a rule', () => {
      const DENIED = 403;
      const cases: [string, (ids: { a: string; child: string }) => string, number][] = [
        ['a percent-encoded slash inside a segment', ({ a }) => `/v2/accounts/${a}/users%2F..%2Fdevices`, DENIED],
        ['a percent-encoded slash hiding the endpoint', ({ a }) => `/v2/accounts/${a}%2Fdevices/x`, DENIED],
        ['an encoded endpoint name', ({ a }) => `/v2/accounts/${a}/%64evices/x`, DENIED],
        ['a doubled slash', ({ a }) => `/v2/accounts/${a}//devices//x`, DENIED],
        ['a doubled slash before the version', ({ a }) => `//v2/accounts/${a}/devices/x`, DENIED],
        ['a dot-dot segment', ({ a }) => `/v2/accounts/${a}/users/../devices/x`, DENIED],
        ['an encoded dot-dot segment', ({ a }) => `/v2/accounts/${a}/users/%2e%2e/devices/x`, DENIED],
        ['a dot segment', ({ a }) => `/v2/accounts/${a}/./devices/x`, DENIED],
        ['a trailing slash', ({ a }) => `/v2/accounts/${a}/devices/x/`, DENIED],
        ['an endpoint in capitals', ({ a }) => `/v2/accounts/${a}/DEVICES/x`, DENIED],
        ['an account id in capitals', ({ a }) => `/v2/accounts/${a.toUpperCase()}/devices/x`, DENIED],
        ['an argument in capitals against a blocking key', ({ a }) => `/v2/accounts/${a}/API_KEY`, DENIED],
        ['a version in capitals', ({ a }) => `/V2/accounts/${a}/devices/x`, DENIED],
        ['a query string naming another endpoint', ({ a }) => `/v2/accounts/${a}/devices/x?path=/users`, DENIED],
        ['/v1 instead of /v2', ({ a }) => `/v1/accounts/${a}/devices/x`, DENIED],
        ['/v1 against a blocking argument key', ({ a }) => `/v1/accounts/${a}/api_key`, DENIED],
      ];
      it.each(cases)('%s', async (_name, build, status) => {
        const r = await rawRequest(srv.url, 'GET', build({ a: a.id, child: child.id }), token);
        expect(r.status).toBe(status);
        expect(r.body.data.cause).toBe(SEED_403.cause);
      });

      it.each([
        ['a trailing slash', (id: string) => `/v2/accounts/${id}/users/`],
        ['an endpoint in capitals', (id: string) => `/v2/accounts/${id}/USERS`],
        ['an account id in capitals', (id: string) => `/v2/accounts/${id.toUpperCase()}/users`],
        ['a query string', (id: string) => `/v2/accounts/${id}/users?_=123&filter=devices`],
        ['/v1', (id: string) => `/v1/accounts/${id}/users`],
        ['a doubled slash', (id: string) => `/v2//accounts//${id}/users`],
      ])('the same spelling of an allowed request is still allowed: %s', async (_name, build) => {
        const r = await rawRequest(srv.url, 'GET', build(a.id), token);
        expect(r.status).toBe(200);
      });

      it('the blocking key also blocks the plain spelling, while the account itself is readable', async () => {
        expect((await srv.request('GET', `/v2/accounts/${a.id}/api_key`, { token })).status).toBe(403);
        expect((await srv.request('GET', `/v2/accounts/${a.id}`, { token })).status).toBe(200);
      });
    });
  });

  describe('restrictions given at login (second form)', () => {
    it('a read-only login token may GET and may not write', async () => {
      const token = await srv.apiLogin(a.apiKey, { get: ['#'] });
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(200);
      const r = await srv.request('PUT', `/v2/accounts/${a.id}/devices`, { token, data: { name: 'x' } });
      expect(r.status).toBe(403);
      expect(r.body.data).toMatchObject({ ...SEED_403, step: 'login' });
      expect(r.body.data.reason).toBe('Login restrictions: there are no patterns under `put` or `*`; denied.');
    });

    it('* patterns cover every method on the paths they match', async () => {
      const token = await srv.apiLogin(a.apiKey, { '*': [`accounts/${a.id}/users/#`] });
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token })).status).toBe(200);
      expect((await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token, data: { username: 'lf', password: 'pw-123456', first_name: 'F', last_name: 'L' } })).status).toBe(201);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(403);
      expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(403);
    });

    it('path tricks do not slip past a login pattern', async () => {
      const token = await srv.apiLogin(a.apiKey, { get: [`accounts/${a.id}/users`] });
      expect((await rawRequest(srv.url, 'GET', `/v2/accounts/${a.id}/users/../devices`, token)).status).toBe(403);
      expect((await rawRequest(srv.url, 'GET', `/v2/accounts/${a.id}/users%2F..%2Fdevices`, token)).status).toBe(403);
      expect((await rawRequest(srv.url, 'GET', `/V1/ACCOUNTS/${a.id.toUpperCase()}/USERS/`, token)).status).toBe(200);
    });

    it('user_auth takes them too', async () => {
      const { createHash } = await import('node:crypto');
      const credentials = createHash('md5').update('clerk:pw-123456').digest('hex');
      const r = await srv.request('PUT', '/v2/user_auth', { data: { credentials, account_name: 'Restricted Co', restrictions: { get: ['token_auth'] } } });
      expect(r.status).toBe(201);
      const token = r.body.auth_token;
      expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token })).status).toBe(403);
    });

    it('when both forms are present a request must pass both', async () => {
      await setTemplate(a.id, { _: { _: { users: [{ rules: { '#': ['GET'] } }], devices: [{ rules: { '#': ['_'] } }] } } });
      const token = await srv.apiLogin(a.apiKey, { '*': [`accounts/${a.id}/users/#`, `accounts/${a.id}/vmboxes/#`] });
      await clearTemplate(a.id);
      expect((await srv.request('GET', `/v2/accounts/${a.id}/users`, { token })).status).toBe(200);
      const templateDenies = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token, data: { username: 'z', password: 'pw-123456', first_name: 'F', last_name: 'L' } });
      expect(templateDenies.body.data.step).toBe('verb');
      const loginDenies = await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token });
      expect(loginDenies.body.data.step).toBe('login');
      const bothDeny = await srv.request('GET', `/v2/accounts/${a.id}/vmboxes`, { token });
      expect(bothDeny.body.data.step).toBe('endpoint');
    });

    it('malformed login restrictions are a 400 and issue no token', async () => {
      const r = await srv.request('PUT', '/v2/api_auth', { data: { api_key: a.apiKey, restrictions: { GET: ['#'], put: '#' } } });
      expect(r.status).toBe(400);
      expect(r.body.data['restrictions.GET'].enum).toBeDefined();
      expect(r.body.data['restrictions.put'].type).toBeDefined();
      expect(r.body.auth_token).toBeUndefined();
    });

    it('super-duper admin tokens ignore login restrictions too', async () => {
      const token = await srv.apiLogin(srv.master.api_key, { get: ['token_auth'] });
      expect((await srv.request('GET', `/v2/accounts/${a.id}/devices`, { token })).status).toBe(200);
    });
  });
});
