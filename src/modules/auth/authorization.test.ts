import { request as rawHttp } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { closeCore, openCore } from '../../core.js';
import { startApi } from '../../http/app.js';
import { MASKED } from '../webhooks/service.js';

/** Sends a request with headers fetch would not let us set (Host, Transfer-Encoding). */
function raw(
  base: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean },
): Promise<{ status: number; body: any }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = rawHttp(
      { host: url.hostname, port: url.port, method: opts.method, path: opts.path, headers: opts.headers ?? {} },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) {
      if (opts.chunked) {
        const b = Buffer.from(opts.body);
        for (let i = 0; i < b.length; i += 16_384) req.write(b.subarray(i, i + 16_384));
      } else req.write(opts.body);
    }
    req.end();
  });
}

describe('authorization holes a reviewer finds first', () => {
  let srv: TestServer;
  let sub: { id: string; apiKey: string };
  const userPath = (accountId: string, id = '') => `/v2/accounts/${accountId}/users${id ? `/${id}` : ''}`;

  /** An account with an admin `boss` and a plain `clerk` (password `pw-<name>`). */
  async function office(name: string, parent = srv.master.account_id) {
    const account = await createSubAccount(srv, parent, name);
    const ids: Record<string, string> = {};
    for (const [username, priv_level] of [['boss', 'admin'], ['clerk', 'user']]) {
      const r = await srv.request('PUT', userPath(account.id), { token: srv.adminToken, data: { username, password: `pw-${username}`, priv_level, first_name: 'F', last_name: 'L' } });
      expect(r.status).toBe(201);
      ids[username] = r.body.data.id;
    }
    const login = (username: string, password = `pw-${username}`) => srv.userLogin(name, username, password);
    return { ...account, boss: ids.boss, clerk: ids.clerk, login };
  }

  beforeAll(async () => {
    srv = await startTestServer();
    const o = await office('Sub');
    sub = o;
  });
  afterAll(() => srv?.close());

  describe("1: a plain user changes only their own user document", () => {
    it("PATCH of the admin's password by a plain user is a 403, and the admin's password still logs in", async () => {
      const o = await office('Takeover Co');
      const cl = await o.login('clerk');
      const r = await srv.request('PATCH', userPath(o.id, o.boss), { token: cl, data: { password: 'owned' } });
      expect(r.status).toBe(403);
      await expect(srv.userLogin('Takeover Co', 'boss', 'owned')).rejects.toThrow(/401/);
      await expect(o.login('boss')).resolves.toBeTypeOf('string');
    });

    it('a plain user may change their own password and name, never their priv_level or enabled', async () => {
      const o = await office('Self Co');
      const cl = await o.login('clerk');
      const own = userPath(o.id, o.clerk);
      expect((await srv.request('PATCH', own, { token: cl, data: { first_name: 'Clara' } })).status).toBe(200);
      expect((await srv.request('PATCH', own, { token: cl, data: { priv_level: 'admin' } })).status).toBe(403);
      expect((await srv.request('PATCH', own, { token: cl, data: { enabled: false } })).status).toBe(403);
      expect((await srv.request('PATCH', own, { token: cl, data: { password: 'new-pass' } })).status).toBe(200);
      await expect(srv.userLogin('Self Co', 'clerk', 'new-pass')).resolves.toBeTypeOf('string');
    });

    it('creating and deleting users needs an admin of the account', async () => {
      const o = await office('Staff Co');
      const cl = await o.login('clerk');
      const bs = await o.login('boss');
      const put = await srv.request('PUT', userPath(o.id), { token: cl, data: { username: 'temp', password: 'pw-temp-1', first_name: 'F', last_name: 'L' } });
      expect(put.status).toBe(403);
      expect((await srv.request('DELETE', userPath(o.id, o.boss), { token: cl })).status).toBe(403);
      expect((await srv.request('GET', userPath(o.id, o.boss), { token: bs })).status).toBe(200);
      const made = await srv.request('PUT', userPath(o.id), { token: bs, data: { username: 'temp', password: 'pw-temp-1', first_name: 'F', last_name: 'L' } });
      expect(made.status).toBe(201);
      expect((await srv.request('PATCH', userPath(o.id, o.clerk), { token: bs, data: { password: 'reset-by-boss' } })).status).toBe(200);
      expect((await srv.request('DELETE', userPath(o.id, made.body.data.id), { token: bs })).status).toBe(200);
    });
  });

  describe('2: a segment after accounts/ is always an account id', () => {
    it('PUT /v2/accounts/devices/devices names an account "devices": 404 for the super-duper admin, 403 for a tenant (an unknown account like a foreign one), and stores nothing', async () => {
      const tenant = await srv.apiLogin(sub.apiKey);
      const w = await srv.request('PUT', '/v2/accounts/devices/devices', { token: tenant, data: { name: 'shared?' } });
      expect(w.status).toBe(403);
      const other = await createSubAccount(srv, srv.master.account_id, 'Other Tenant');
      const otherToken = await srv.apiLogin(other.apiKey);
      expect((await srv.request('GET', '/v2/accounts/devices/devices', { token: otherToken })).status).toBe(403);
      const admin = await srv.request('PUT', '/v2/accounts/devices/devices', { token: srv.adminToken, data: { name: 'x' } });
      expect(admin.status).toBe(404);
      expect(admin.body.data).toMatchObject({ cause: 'devices', message: 'bad identifier' });
      const stored = srv.core.db.prepare("SELECT COUNT(*) AS n FROM docs WHERE account_id = 'devices'").get() as { n: number };
      expect(stored.n).toBe(0);
    });

    it('without a token it is still a 401 first', async () => {
      expect((await srv.request('GET', '/v2/accounts/users/users')).status).toBe(401);
    });
  });

  describe('3: a token dies with what it stood for', () => {
    it("a disabled account's tokens answer 401 at once, and its logins are refused", async () => {
      const o = await office('Closing Co');
      const cl = await o.login('clerk');
      const key = await srv.apiLogin(o.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(200);
      expect((await srv.request('PATCH', `/v2/accounts/${o.id}`, { token: srv.adminToken, data: { enabled: false } })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(401);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: key })).status).toBe(401);
      await expect(o.login('clerk')).rejects.toThrow(/401/);
      await expect(srv.apiLogin(o.apiKey)).rejects.toThrow(/401/);
    });

    it("a disabled user's tokens answer 401 and the user cannot log in", async () => {
      const o = await office('Leaver Co');
      const cl = await o.login('clerk');
      const bs = await o.login('boss');
      expect((await srv.request('PATCH', userPath(o.id, o.clerk), { token: bs, data: { enabled: false } })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(401);
      await expect(o.login('clerk')).rejects.toThrow(/401/);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: bs })).status).toBe(200);
    });

    it("a password change ends the user's tokens; a login with the new password works", async () => {
      const o = await office('Rotate Co');
      const cl = await o.login('clerk');
      expect((await srv.request('PATCH', userPath(o.id, o.clerk), { token: srv.adminToken, data: { password: 'changed-1' } })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(401);
      const fresh = await srv.userLogin('Rotate Co', 'clerk', 'changed-1');
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: fresh })).status).toBe(200);
    });

    // Kazoo revokes no token on a password change; tel ends the user's other sessions, never the
    // caller's own (Monster UI's Account Manager changes a password, then goes on with its token)
    it("a user's own password change keeps the token that made it and ends their other sessions", async () => {
      const o = await office('Self Rotate Co');
      const here = await o.login('clerk');
      const elsewhere = await o.login('clerk');
      const changed = await srv.request('PATCH', userPath(o.id, o.clerk), { token: here, data: { password: 'changed-2' } });
      expect(changed.status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: here })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: elsewhere })).status).toBe(401);
      const whole = await srv.request('GET', userPath(o.id, o.clerk), { token: here });
      expect((await srv.request('POST', userPath(o.id, o.clerk), { token: here, data: { ...whole.body.data, password: 'changed-3' } })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: here })).status).toBe(200);
    });

    it('a dropped admin level ends the tokens that carried it', async () => {
      const o = await office('Demote Co');
      const bs = await o.login('boss');
      expect((await srv.request('GET', `/v2/accounts/${o.id}/api_key`, { token: bs })).status).toBe(200);
      expect((await srv.request('PATCH', userPath(o.id, o.boss), { token: srv.adminToken, data: { priv_level: 'user' } })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: bs })).status).toBe(401);
      const again = await o.login('boss');
      expect((await srv.request('GET', `/v2/accounts/${o.id}/api_key`, { token: again })).status).toBe(403);
    });

    it("a new API key (PUT api_key) ends the old key's tokens, not the users'", async () => {
      const o = await office('Key Co');
      const keyToken = await srv.apiLogin(o.apiKey);
      const bs = await o.login('boss');
      const cl = await o.login('clerk');
      expect((await srv.request('PUT', `/v2/accounts/${o.id}/api_key`, { token: cl })).status).toBe(403);
      const r = await srv.request('PUT', `/v2/accounts/${o.id}/api_key`, { token: bs });
      expect(r.status).toBe(201);
      expect(r.body.data.api_key).toMatch(/^[0-9a-f]{64}$/);
      expect(r.body.data.api_key).not.toBe(o.apiKey);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: keyToken })).status).toBe(401);
      await expect(srv.apiLogin(o.apiKey)).rejects.toThrow(/401/);
      await expect(srv.apiLogin(r.body.data.api_key)).resolves.toBeTypeOf('string');
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: bs })).status).toBe(200);
    });

    it('a token older than token_max_lifetime_s answers 401 however often it was used', async () => {
      const o = await office('Lifetime Co');
      const cl = await o.login('clerk');
      // after the login (a login hashes off the event loop, and waits longer on a busy machine): the token is at least this old
      const t0 = Date.now();
      const config = '/v2/system_configs/crossbar.auth';
      expect((await srv.request('POST', config, { token: srv.adminToken, data: { default: { token_max_lifetime_s: 1 } } })).status).toBe(200);
      try {
        while (Date.now() < t0 + 600) {
          expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(200);
          await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, t0 + 1200 - Date.now()));
        expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(401);
      } finally {
        await srv.request('POST', config, { token: await srv.apiLogin(srv.master.api_key), data: { default: {} } });
      }
    });
  });

  describe('4: deleting or disabling an account needs an admin of it or of an ancestor', () => {
    it('a plain user can neither delete nor disable their own account; its admin and the parent can', async () => {
      const o = await office('Fragile Co');
      const cl = await o.login('clerk');
      expect((await srv.request('DELETE', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(403);
      expect((await srv.request('PATCH', `/v2/accounts/${o.id}`, { token: cl, data: { enabled: false } })).status).toBe(403);
      const whole = (await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).body.data;
      expect((await srv.request('POST', `/v2/accounts/${o.id}`, { token: cl, data: { ...whole, enabled: false } })).status).toBe(403);
      expect((await srv.request('GET', `/v2/accounts/${o.id}`, { token: cl })).status).toBe(200);
      const bs = await o.login('boss');
      expect((await srv.request('PATCH', `/v2/accounts/${o.id}`, { token: bs, data: { enabled: false } })).status).toBe(200);
      expect((await srv.request('DELETE', `/v2/accounts/${o.id}`, { token: srv.adminToken })).status).toBe(200);
    });
  });

  describe('5: webhook secrets and uri credentials are for admins', () => {
    it('a plain user sees them masked; a whole document posted back keeps the real ones', async () => {
      const o = await office('Hooks Co');
      const bs = await o.login('boss');
      const cl = await o.login('clerk');
      const hook = { name: 'CRM', uri: 'https://crm:hunter2@crm.example.com/hook?x=1', hook: 'channel_create', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=' };
      const made = await srv.request('PUT', `/v2/accounts/${o.id}/webhooks`, { token: bs, data: hook });
      expect(made.status, made.text).toBe(201);
      const path = `/v2/accounts/${o.id}/webhooks/${made.body.data.id}`;
      const seen = (await srv.request('GET', path, { token: cl })).body.data;
      expect(seen.secret).toBe(MASKED);
      expect(seen.uri).toBe(`https://${MASKED}@crm.example.com/hook?x=1`);
      const listed = (await srv.request('GET', `/v2/accounts/${o.id}/webhooks`, { token: cl })).body.data;
      expect(listed[0].uri).toBe(`https://${MASKED}@crm.example.com/hook?x=1`);
      expect(JSON.stringify(listed)).not.toContain('hunter2');
      // posted back whole with a new name: the masks mean "unchanged"
      const back = await srv.request('POST', path, { token: cl, data: { ...seen, name: 'CRM 2' } });
      expect(back.status).toBe(200);
      expect(back.body.data.secret).toBe(MASKED);
      const real = (await srv.request('GET', path, { token: bs })).body.data;
      expect(real).toMatchObject({ name: 'CRM 2', secret: hook.secret, uri: hook.uri });
      // a plain user changes no secret; one they give a hook they create is shown to them once, in that answer
      expect((await srv.request('PATCH', path, { token: cl, data: { secret: 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=' } })).status).toBe(403);
      const own = await srv.request('PUT', `/v2/accounts/${o.id}/webhooks`, { token: cl, data: { ...hook, secret: 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=' } });
      expect(own.body.data.secret).toBe('whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=');
      expect((await srv.request('GET', `/v2/accounts/${o.id}/webhooks/${own.body.data.id}`, { token: cl })).body.data.secret).toBe(MASKED);
    });
  });

  describe('6: page sizes are bounded', () => {
    it.each(['1e300', '1001', '0', '-5', '2.5', 'abc'])('page_size=%s on every listing is a 400 with the validation shape', async (size) => {
      const token = srv.adminToken;
      for (const listing of ['phone_numbers', 'users', 'webhooks', 'webhooks/attempts', 'resources/jobs', 'children']) {
        const r = await srv.request('GET', `/v2/accounts/${sub.id}/${listing}?page_size=${size}`, { token });
        expect(r.status, `${listing} page_size=${size}`).toBe(400);
        expect(Object.keys(r.body.data)).toEqual(['page_size']);
      }
    });

    it('page_size=1000 (the documented maximum) answers', async () => {
      const r = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers?page_size=1000`, { token: srv.adminToken });
      expect(r.status).toBe(200);
    });
  });

  describe('7: large bodies are read only behind a valid token', () => {
    const big = JSON.stringify({ data: { name: 'x'.repeat(200_000) } });

    it('a body over 64 KiB without a valid token is a 413; a small bad body keeps 400 before 401', async () => {
      const path = `/v2/accounts/${sub.id}`;
      expect((await raw(srv.url, { method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: big })).status).toBe(413);
      const bogus = { 'Content-Type': 'application/json', 'X-Auth-Token': 'not-a-token' };
      expect((await raw(srv.url, { method: 'POST', path, headers: bogus, body: big })).status).toBe(413);
      expect((await raw(srv.url, { method: 'POST', path, headers: { ...bogus, 'Transfer-Encoding': 'chunked' }, body: big, chunked: true })).status).toBe(413);
      expect((await raw(srv.url, { method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: '{not json' })).status).toBe(400);
      expect((await raw(srv.url, { method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: '{"data":{}}' })).status).toBe(401);
    });

    it('the same large body behind a valid token is read and handled', async () => {
      const r = await raw(srv.url, {
        method: 'PATCH',
        path: `/v2/accounts/${sub.id}`,
        headers: { 'Content-Type': 'application/json', 'X-Auth-Token': srv.adminToken },
        body: JSON.stringify({ data: { notes: 'n'.repeat(200_000) } }),
      });
      expect(r.status).toBe(200);
      expect(r.body.data.notes).toHaveLength(200_000);
    });
  });

  describe('8: a super-duper-only path asks for a token first, then for a super-duper admin', () => {
    it('401 without a token or with a bad one, 403 for a tenant, answered for the super-duper admin', async () => {
      const tenant = await srv.apiLogin(sub.apiKey);
      const paths: [string, string, unknown?][] = [
        ['GET', '/v2/about'],
        ['GET', '/v2/system_configs/webhooks'],
        ['PUT', `/v2/accounts/${sub.id}/reseller`, {}],
        ['DELETE', '/v2/system_configs'],
      ];
      for (const [method, path, data] of paths) {
        const got = async (token?: string) => (await srv.request(method, path, { token, data })).status;
        expect({ path, none: await got(), bad: await got('not-a-token'), tenant: await got(tenant) }).toEqual({ path, none: 401, bad: 401, tenant: 403 });
        expect([401, 403]).not.toContain(await got(srv.adminToken));
      }
    });
  });

  describe('9: an account acts on itself and below it, never on its parent, an ancestor or a sibling', () => {
    it('a child account\'s token is refused on each of them with the same 403, whatever the method', async () => {
      const parent = await createSubAccount(srv, srv.master.account_id, 'Parent Co');
      const child = await createSubAccount(srv, parent.id, 'Child Co');
      const sibling = await createSubAccount(srv, parent.id, 'Sibling Co');
      const grandchild = await createSubAccount(srv, child.id, 'Grandchild Co');
      const token = await srv.apiLogin(child.apiKey);
      for (const target of [parent.id, srv.master.account_id, sibling.id]) {
        for (const [method, path, data] of [
          ['GET', `/v2/accounts/${target}`],
          ['POST', `/v2/accounts/${target}`, { name: 'taken over' }],
          ['GET', `/v2/accounts/${target}/users`],
          ['PUT', `/v2/accounts/${target}/devices`, { name: 'planted' }],
          ['DELETE', `/v2/accounts/${target}`],
        ] as [string, string, unknown?][]) {
          const r = await srv.request(method, path, { token, data });
          expect({ method, path, status: r.status }).toEqual({ method, path, status: 403 });
          expect(r.body.data.cause).toBe('the token may act on its own account and its descendants only');
        }
      }
      expect((await srv.request('GET', `/v2/accounts/${parent.id}`, { token: srv.adminToken })).body.data.name).toBe('Parent Co');
      for (const own of [child.id, grandchild.id]) expect((await srv.request('GET', `/v2/accounts/${own}/users`, { token })).status).toBe(200);
    });
  });

  describe('DNS rebinding: a loopback server answers only loopback Host names', () => {
    it('a foreign Host is a 403; localhost, 127.0.0.1 and [::1] pass; --allowed-host adds a name', async () => {
      const path = `/v2/accounts/${sub.id}`;
      const headers = (host: string) => ({ Host: host, 'X-Auth-Token': srv.adminToken });
      const port = new URL(srv.url).port;
      const evil = await raw(srv.url, { method: 'GET', path, headers: headers(`rebind.evil.example:${port}`) });
      expect(evil.status).toBe(403);
      expect(evil.body.data.cause).toMatch(/Host/);
      for (const ok of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'app.localhost']) {
        expect((await raw(srv.url, { method: 'GET', path, headers: headers(ok) })).status, ok).toBe(200);
      }
      const core = openCore(srv.dbFile);
      const api = await startApi(core, '127.0.0.1', 0, { allowedHosts: ['tel.lab.test'] });
      try {
        expect((await raw(api.url, { method: 'GET', path, headers: headers('tel.lab.test:80') })).status).toBe(200);
        expect((await raw(api.url, { method: 'GET', path, headers: headers('other.lab.test') })).status).toBe(403);
      } finally {
        await api.close();
        closeCore(core);
      }
    });
  });

});
