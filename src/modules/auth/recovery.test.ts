import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';
import { requestFrom as from } from '../../../test/helpers/tenants.js';

describe('user_auth/recovery: a reset link to the notifications hooks, followed once', () => {
  let srv: TestServer;
  let sink: Sink;
  let acct: { id: string; apiKey: string };
  let realm: string;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    acct = await createSubAccount(srv, srv.master.account_id, 'Recovering');
    realm = (await srv.request('GET', `/v2/accounts/${acct.id}`, { token: srv.adminToken })).body.data.realm;
    const u = await srv.request('PUT', `/v2/accounts/${acct.id}/users`, {
      token: srv.adminToken,
      data: { first_name: 'Ada', last_name: 'L', username: 'ada', password: 'secret-one', email: 'ada@example.com' },
    });
    expect(u.status, u.text).toBe(201);
    await srv.request('PUT', `/v2/accounts/${acct.id}/users`, { token: srv.adminToken, data: { first_name: 'Off', last_name: 'L', username: 'off', password: 'secret-two', enabled: false } });
    const h = await srv.request('PUT', `/v2/accounts/${acct.id}/webhooks`, {
      token: srv.adminToken,
      data: { name: 'resets', uri: `${sink.url}/n`, hook: 'notifications', http_verb: 'post', format: 'json', custom_data: { type: 'password_recovery' } },
    });
    expect(h.status, h.text).toBe(201);
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  it('sends the link, and the link logs the user in once, asking for a new password', async () => {
    const put = await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_realm: realm, username: 'ADA', ui_url: 'https://ui.example.com/' } });
    expect(put.status, put.text).toBe(201);
    expect(put.body.data).toMatch(/ada@example\.com$/);
    const [req] = await sink.waitFor(1);
    const note = JSON.parse(req.body);
    expect(note).toMatchObject({ event_name: 'password_recovery', account_id: acct.id, email: 'ada@example.com', first_name: 'Ada' });
    const resetId = /[?&]recovery=([0-9a-f]+)$/.exec(note.password_reset_link)![1];
    expect(note.password_reset_link).toBe(`https://ui.example.com/?recovery=${resetId}`);
    expect(resetId).toHaveLength(137);
    expect(resetId.startsWith(acct.id)).toBe(true);

    const post = await srv.request('POST', '/v2/user_auth/recovery', { token: null, data: { reset_id: resetId } });
    expect(post.status, post.text).toBe(200);
    expect(post.body.data).toMatchObject({ account_id: acct.id, owner_id: note.user_id, method: 'cb_user_auth' });
    const user = await srv.request('GET', `/v2/accounts/${acct.id}/users/${note.user_id}`, { token: post.body.auth_token });
    expect(user.status, user.text).toBe(200);
    expect(user.body.data.require_password_update).toBe(true);

    const again = await srv.request('POST', '/v2/user_auth/recovery', { token: null, data: { reset_id: resetId } });
    expect(again.status).toBe(400);
    expect(again.body.data.user.not_found).toEqual({ message: 'The provided reset_id did not resolve to any user', cause: resetId });
  });

  it("answers Kazoo's 400s for an unknown or disabled user and a malformed reset id", async () => {
    const unknown = await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_name: 'Recovering', username: 'nobody', ui_url: 'https://ui.example.com/' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.data.username.not_found).toEqual({ message: 'The provided user name was not found', cause: 'nobody' });
    const off = await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_name: 'Recovering', username: 'off', ui_url: 'https://ui.example.com/' } });
    expect(off.body.data.username.forbidden).toEqual({ message: 'The provided user name is disabled', cause: 'off' });
    const missing = await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_name: 'Recovering', username: 'ada' } });
    expect(missing.body.data.ui_url.required).toBeDefined();
    const bad = await srv.request('POST', '/v2/user_auth/recovery', { token: null, data: { reset_id: 'not-hex' } });
    expect(bad.body.data.reset_id.pattern).toBeDefined();
  });

  it('a link works for a day, in either case; a UI URL with a query gets the id after &; a user without e-mail is named by username', async () => {
    const DAY = 24 * 3600 * 1000;
    await srv.request('PUT', `/v2/accounts/${acct.id}/users`, { token: srv.adminToken, data: { first_name: 'Bea', last_name: 'L', username: 'bea', password: 'secret-three' } });
    /** asks for a link; answers its reset id and what the answer said */
    const ask = async (username: string, ui_url = 'https://ui.example.com/') => {
      const seen = sink.requests.length;
      const put = await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_name: 'Recovering', username, ui_url } });
      expect(put.status, put.text).toBe(201);
      const note = JSON.parse((await sink.waitFor(seen + 1))[seen].body);
      return { said: put.body.data as string, note, resetId: /[?&]recovery=([0-9a-f]+)$/.exec(note.password_reset_link)![1] };
    };
    const follow = async (resetId: string) => (await srv.request('POST', '/v2/user_auth/recovery', { token: null, data: { reset_id: resetId } })).status;
    const age = (resetId: string, ms: number) =>
      srv.core.db.prepare('UPDATE password_resets SET created = created - ? WHERE id = ?').run(ms, createHash('sha256').update(resetId).digest('hex'));
    const stored = (resetId: string) => srv.core.db.prepare('SELECT 1 FROM password_resets WHERE id = ?').get(createHash('sha256').update(resetId).digest('hex')) !== undefined;

    const bea = await ask('bea', 'https://ui.example.com/?lang=fr');
    expect(bea.note.password_reset_link).toBe(`https://ui.example.com/?lang=fr&recovery=${bea.resetId}`);
    expect(bea.note.email).toBe('bea');
    expect(bea.said).toMatch(/: bea$/);
    const old = await ask('ada');
    age(old.resetId, DAY + 1000);
    age(bea.resetId, DAY - 60_000);
    // the next request clears the links past their day, and only those
    const fresh = await ask('ada');
    expect([stored(old.resetId), stored(bea.resetId)]).toEqual([false, true]);
    expect(await follow(old.resetId)).toBe(400);
    expect(await follow(bea.resetId.toUpperCase())).toBe(200);
    age(fresh.resetId, DAY + 1000);
    expect(await follow(fresh.resetId)).toBe(400);
  });

  /** Asks a link for a user of an account from an address; answers the reset id the account's hook got. */
  async function linkFor(account: string, username: string, address = '127.0.0.1'): Promise<string> {
    const seen = sink.requests.length;
    const put = await from(srv.url, address, 'PUT', '/v2/user_auth/recovery', { account_name: account, username, ui_url: 'https://ui.example.com/' });
    expect(put.status).toBe(201);
    const note = JSON.parse((await sink.waitFor(seen + 1))[seen].body);
    return /[?&]recovery=([0-9a-f]+)$/.exec(note.password_reset_link)![1];
  }

  it("a disabled or deleted account's users get no link, and the links they had no longer log in", async () => {
    const gone = await createSubAccount(srv, srv.master.account_id, 'Going');
    for (const account of [acct.id, gone.id]) {
      await srv.request('PUT', `/v2/accounts/${account}/users`, { token: srv.adminToken, data: { first_name: 'Cy', last_name: 'L', username: 'cy', password: 'secret-four' } });
    }
    await srv.request('PUT', `/v2/accounts/${gone.id}/webhooks`, {
      token: srv.adminToken,
      data: { name: 'resets', uri: `${sink.url}/n`, hook: 'notifications', http_verb: 'post', format: 'json', custom_data: { type: 'password_recovery' } },
    });
    const follow = async (reset_id: string) => (await srv.request('POST', '/v2/user_auth/recovery', { token: null, data: { reset_id } })).status;
    const ask = async (account_name: string) => (await srv.request('PUT', '/v2/user_auth/recovery', { token: null, data: { account_name, username: 'cy', ui_url: 'https://ui.example.com/' } })).body;
    const beforeDisabled = await linkFor('Recovering', 'cy');
    const beforeDeleted = await linkFor('Going', 'cy');
    expect((await srv.request('PATCH', `/v2/accounts/${acct.id}`, { token: srv.adminToken, data: { enabled: false } })).status).toBe(200);
    try {
      expect(await follow(beforeDisabled)).toBe(400);
      expect((await ask('Recovering')).data.username.not_found).toBeDefined();
    } finally {
      await srv.request('PATCH', `/v2/accounts/${acct.id}`, { token: srv.adminToken, data: { enabled: true } });
    }
    expect((await srv.request('DELETE', `/v2/accounts/${gone.id}`, { token: srv.adminToken })).status).toBe(200);
    expect(await follow(beforeDeleted)).toBe(400);
  });

  it('asking and following links count against the login throttle as logins do, and a right one clears its account', async () => {
    const set = (v: Record<string, unknown>) => srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: v } });
    const ask = (address: string, username: string) => from(srv.url, address, 'PUT', '/v2/user_auth/recovery', { account_name: 'Recovering', username, ui_url: 'https://ui.example.com/' });
    const login = (address: string, password: string) => from(srv.url, address, 'PUT', '/v2/user_auth', { credentials: createHash('md5').update(`ada:${password}`).digest('hex'), account_name: 'Recovering' });
    const follow = (address: string, reset_id: string) => from(srv.url, address, 'POST', '/v2/user_auth/recovery', { reset_id });
    const resetId = await linkFor('Recovering', 'ada', '127.0.0.15');
    expect((await set({ login_max_failures: 1 })).status).toBe(200);
    try {
      // each address its own story, side by side: past the budget (one failure) a key's next try waits a second
      await Promise.all([
        (async () => {
          // an unknown and a disabled user count against the account named
          expect((await ask('127.0.0.11', 'nobody')).status).toBe(400);
          expect((await ask('127.0.0.11', 'off')).status).toBe(400);
          const slowed = await login('127.0.0.11', 'secret-one');
          expect(slowed.status).toBe(201);
          expect(slowed.ms).toBeGreaterThanOrEqual(900);
        })(),
        (async () => {
          // a link asked rightly clears the account's count of that address
          for (const pw of ['wrong-1', 'wrong-2']) expect((await login('127.0.0.12', pw)).status).toBe(401);
          expect((await ask('127.0.0.12', 'ada')).status).toBe(201);
          const next = await login('127.0.0.12', 'wrong-3');
          expect(next.status).toBe(401);
          expect(next.ms).toBeLessThan(800);
        })(),
        (async () => {
          // an unknown reset id counts as an API key's failure does: against the address, naming no account
          for (let i = 0; i < 2; i++) expect((await follow('127.0.0.13', `${i}`.repeat(40))).status).toBe(400);
          const slowed = await from(srv.url, '127.0.0.13', 'PUT', '/v2/api_auth', { api_key: acct.apiKey });
          expect(slowed.status).toBe(201);
          expect(slowed.ms).toBeGreaterThanOrEqual(900);
        })(),
        (async () => {
          // a link followed rightly clears the count of the account it logs into
          for (const pw of ['wrong-1', 'wrong-2']) expect((await login('127.0.0.14', pw)).status).toBe(401);
          expect((await follow('127.0.0.14', resetId)).status).toBe(200);
          const next = await login('127.0.0.14', 'wrong-3');
          expect(next.status).toBe(401);
          expect(next.ms).toBeLessThan(800);
        })(),
      ]);
    } finally {
      await set({});
    }
  });
});

