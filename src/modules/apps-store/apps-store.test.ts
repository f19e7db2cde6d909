import { request as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { closeCore, openCore } from '../../core.js';
import { openDb } from '../../store/db.js';
import { listApps, WEBHOOKS_APP_ID } from './service.js';

/** A GET with a chosen `Host` header (fetch sets its own). */
function getWithHost(base: string, path: string, token: string, headers: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = httpGet(base + path, { headers: { 'X-Auth-Token': token, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('apps store (/v2/accounts/{id}/apps_store)', () => {
  let srv: TestServer;
  let sub: { id: string; apiKey: string };
  let sibling: { id: string; apiKey: string };
  let clerk: string;
  let boss: string;
  const store = (account: string, app = '') => `/v2/accounts/${account}/apps_store${app ? `/${app}` : ''}`;

  beforeAll(async () => {
    srv = await startTestServer();
    sub = await createSubAccount(srv, srv.master.account_id, 'Shop');
    sibling = await createSubAccount(srv, srv.master.account_id, 'Other Shop');
    for (const [username, priv_level] of [['boss', 'admin'], ['clerk', 'user']]) {
      await srv.request('PUT', `/v2/accounts/${sub.id}/users`, { token: srv.adminToken, data: { username, password: `pw-${username}`, priv_level, first_name: 'F', last_name: 'L' } });
    }
    boss = await srv.userLogin('Shop', 'boss', 'pw-boss');
    clerk = await srv.userLogin('Shop', 'clerk', 'pw-clerk');
  });
  afterAll(() => srv?.close());

  it('a new database offers the webhooks app to every account, installed on the master for all; its api_url this server as reached', async () => {
    for (const account of [srv.master.account_id, sub.id]) {
      const r = await srv.request('GET', store(account), { token: srv.adminToken });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('success');
      // allowed_users only where it is installed: Kazoo's listing leaves the key out otherwise
      const installed = account === srv.master.account_id ? { allowed_users: 'all' } : {};
      expect(r.body.data).toEqual([
        {
          id: WEBHOOKS_APP_ID,
          name: 'webhooks',
          i18n: { 'en-US': { label: 'Webhooks', description: expect.stringMatching(/webhooks/i) } },
          tags: ['developer'],
          api_url: `${srv.url}/v2/`,
          account_id: srv.master.account_id,
          users: [],
          masqueradable: true,
          ...installed,
        },
      ]);
    }
    // installed: a change is a POST, not a second PUT (Monster UI's Account Manager tells them apart by allowed_users)
    expect((await srv.request('PUT', store(srv.master.account_id, WEBHOOKS_APP_ID), { token: srv.adminToken, data: { allowed_users: 'all' } })).status).toBe(400);
  });

  it('api_url follows the Host the client used and a proxy’s X-Forwarded-Proto', async () => {
    const port = new URL(srv.url).port;
    const plain = await getWithHost(srv.url, store(sub.id), srv.adminToken, { Host: `localhost:${port}` });
    expect(plain.data[0].api_url).toBe(`http://localhost:${port}/v2/`);
    const proxied = await getWithHost(srv.url, store(sub.id), srv.adminToken, { Host: `localhost:${port}`, 'X-Forwarded-Proto': 'https' });
    expect(proxied.data[0].api_url).toBe(`https://localhost:${port}/v2/`);
  });

  it('GET one app answers the whole document; an unknown id is 404 bad_identifier', async () => {
    const r = await srv.request('GET', store(sub.id, WEBHOOKS_APP_ID), { token: boss });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: WEBHOOKS_APP_ID, name: 'webhooks', masqueradable: true, api_url: `${srv.url}/v2/` });
    // not installed: no allowed_users (cb_apps_store normalize_apps_result/2 leaves the key out)
    expect(r.body.data.allowed_users).toBeUndefined();
    const missing = await srv.request('GET', store(sub.id, 'f'.repeat(32)), { token: boss });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'error', error: '404', message: 'bad_identifier', data: { cause: 'f'.repeat(32) } });
  });

  it('needs a token (401) and an account the token may act on (403)', async () => {
    expect((await srv.request('GET', store(sub.id))).status).toBe(401);
    const foreign = await srv.apiLogin(sibling.apiKey);
    const r = await srv.request('GET', store(sub.id), { token: foreign });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('forbidden');
  });

  it('install (201), configure (200) and remove (200, data {}) an app, as Kazoo answers them', async () => {
    const put = await srv.request('PUT', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'specific', users: [] } });
    expect(put.status).toBe(201);
    expect(put.body.data).toEqual({ allowed_users: 'specific', users: [], name: 'webhooks' });
    const listed = await srv.request('GET', store(sub.id), { token: clerk });
    expect(listed.body.data[0]).toMatchObject({ id: WEBHOOKS_APP_ID, allowed_users: 'specific', users: [] });

    const again = await srv.request('PUT', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'all' } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: '400', message: 'Application already installed' });

    const post = await srv.request('POST', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'admins' } });
    expect(post.status).toBe(200);
    expect(post.body.data).toEqual({ allowed_users: 'admins', users: [], name: 'webhooks' });
    expect((await srv.request('GET', store(sub.id, WEBHOOKS_APP_ID), { token: boss })).body.data.allowed_users).toBe('admins');

    const del = await srv.request('DELETE', store(sub.id, WEBHOOKS_APP_ID), { token: boss });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({});
    expect((await srv.request('GET', store(sub.id), { token: boss })).body.data[0].allowed_users).toBeUndefined();
    for (const method of ['POST', 'DELETE']) {
      const r = await srv.request(method, store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'all' } });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Application is not installed');
    }
    // installing affects this account only
    expect((await srv.request('GET', store(sibling.id), { token: srv.adminToken })).body.data[0].allowed_users).toBeUndefined();
  });

  it('refuses an app the catalogue does not hold (403), bad permissions (400) and plain users (403)', async () => {
    const unknown = await srv.request('PUT', store(sub.id, 'a'.repeat(32)), { token: boss, data: { allowed_users: 'all' } });
    expect(unknown.status).toBe(403);
    expect(unknown.body.data).toMatchObject({ details: 'a'.repeat(32) });
    const bad = await srv.request('PUT', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'everyone', users: 'me' } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.allowed_users.enum).toBeDefined();
    expect(bad.body.data.users.type).toBeDefined();
    const plain = await srv.request('PUT', store(sub.id, WEBHOOKS_APP_ID), { token: clerk, data: { allowed_users: 'all' } });
    expect(plain.status).toBe(403);
    expect((await srv.request('GET', store(sub.id), { token: clerk })).body.data[0].allowed_users).toBeUndefined();
  });

  it("a login's apps are those its user may use, each with id, name, api_url and label", async () => {
    const login = async (user: string) => {
      const { createHash } = await import('node:crypto');
      const credentials = createHash('md5').update(`${user}:pw-${user}`).digest('hex');
      const r = await srv.request('PUT', '/v2/user_auth', { data: { credentials, account_name: 'Shop' } });
      return r.body.data.apps as Record<string, unknown>[];
    };
    const webhooks = { id: WEBHOOKS_APP_ID, name: 'webhooks', api_url: `${srv.url}/v2/`, label: 'Webhooks' };
    expect(await login('clerk')).toEqual([webhooks]);

    const clerkId = (await srv.request('GET', `/v2/accounts/${sub.id}/users`, { token: boss })).body.data.find((u: any) => u.username === 'clerk').id;
    await srv.request('PUT', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'admins' } });
    expect(await login('clerk')).toEqual([]);
    expect(await login('boss')).toEqual([webhooks]);
    await srv.request('POST', store(sub.id, WEBHOOKS_APP_ID), { token: boss, data: { allowed_users: 'specific', users: [{ id: clerkId }] } });
    expect(await login('clerk')).toEqual([webhooks]);
    expect(await login('boss')).toEqual([]);
    // a token without a user (API key) may use every app
    const byKey = await srv.request('PUT', '/v2/api_auth', { data: { api_key: sub.apiKey } });
    expect(byKey.body.data.apps).toEqual([webhooks]);
    await srv.request('DELETE', store(sub.id, WEBHOOKS_APP_ID), { token: boss });
  });

  it("an account's installed apps go with the account", async () => {
    const leaf = await createSubAccount(srv, sub.id, 'Leaf');
    await srv.request('PUT', store(leaf.id, WEBHOOKS_APP_ID), { token: srv.adminToken, data: { allowed_users: 'all' } });
    const count = () => (srv.core.db.prepare('SELECT count(*) AS n FROM account_apps WHERE account_id = ?').get(leaf.id) as { n: number }).n;
    expect(count()).toBe(1);
    expect((await srv.request('DELETE', `/v2/accounts/${leaf.id}`, { token: srv.adminToken })).status).toBe(200);
    expect(count()).toBe(0);
  });
});

describe('apps store migration', () => {
  it('a database made before the apps store gets the webhooks app when next opened', () => {
    const tmp = tempDir();
    try {
      const file = `${tmp.dir}/old.db`;
      // an existing database, as it was before the apps store's migration
      const db = openDb(file);
      db.exec("DROP TABLE account_apps; DROP TABLE apps; DELETE FROM schema_migrations WHERE id = '1700-apps'");
      db.close();
      const core = openCore(file);
      try {
        expect(listApps(core).map((a) => [a.id, a.name, a.doc.allowed_users, a.doc.masqueradable])).toEqual([[WEBHOOKS_APP_ID, 'webhooks', 'all', true]]);
      } finally {
        closeCore(core);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
