import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_METHODS, DEFAULT_AUTH_MODULES } from '../auth/auth-modules.js';
import { join } from 'node:path';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { closeCore, openCore } from '../../core.js';
import { initDatabase } from './bootstrap.js';
import { createAccount } from './service.js';

describe('accounts and their tree', () => {
  let srv: TestServer;
  let a: { id: string; apiKey: string };
  let a1: { id: string; apiKey: string };
  let b: { id: string; apiKey: string };
  beforeAll(async () => {
    srv = await startTestServer();
    a = await createSubAccount(srv, srv.master.account_id, 'Reseller A');
    a1 = await createSubAccount(srv, a.id, 'Customer A1');
    b = await createSubAccount(srv, srv.master.account_id, 'Reseller B');
  });
  afterAll(async () => srv.close());

  it('PUT /v2/accounts/{parent} creates a child (201) with a 32-hex id and the parent in its tree', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${a.id}`, { token: srv.adminToken, data: { name: 'Child X' } });
    expect(r.status).toBe(201);
    expect(r.body.data.id).toMatch(/^[0-9a-f]{32}$/);
    const desc = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/descendants`, { token: srv.adminToken });
    const row = desc.body.data.find((d: { id: string }) => d.id === r.body.data.id);
    expect(row.tree).toEqual([srv.master.account_id, a.id]);
  });

  it('children lists direct children only, and takes ascending=true', async () => {
    const r = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/children?ascending=true`, { token: srv.adminToken });
    expect(r.status).toBe(200);
    const ids = r.body.data.map((c: { id: string }) => c.id);
    expect(ids).toContain(a.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(a1.id);
    expect(r.body.page_size).toBe(r.body.data.length);
  });

  it('an account token acts on itself and its descendants, never a sibling or a parent', async () => {
    const token = await srv.apiLogin(a.apiKey);
    expect((await srv.request('GET', `/v2/accounts/${a.id}`, { token })).status).toBe(200);
    expect((await srv.request('GET', `/v2/accounts/${a1.id}`, { token })).status).toBe(200);
    const sibling = await srv.request('GET', `/v2/accounts/${b.id}`, { token });
    expect(sibling.status).toBe(403);
    expect(sibling.body).toMatchObject({ error: '403', message: 'forbidden' });
    expect((await srv.request('GET', `/v2/accounts/${srv.master.account_id}`, { token })).status).toBe(403);
    expect((await srv.request('PUT', `/v2/accounts/${b.id}`, { token, data: { name: 'Sneaky' } })).status).toBe(403);
  });

  it('GET /v2/accounts/{id}/api_key answers the key to an admin, never to a plain user', async () => {
    const r = await srv.request('GET', `/v2/accounts/${a.id}/api_key`, { token: srv.adminToken });
    expect(r.body.data).toEqual({ api_key: a.apiKey });
    const users = `/v2/accounts/${a.id}/users`;
    await srv.request('PUT', users, { token: srv.adminToken, data: { username: 'plain', password: 'pw', first_name: 'F', last_name: 'L', priv_level: 'user' } });
    await srv.request('PUT', users, { token: srv.adminToken, data: { username: 'boss', password: 'pw', first_name: 'F', last_name: 'L', priv_level: 'admin' } });
    const plain = await srv.userLogin('Reseller A', 'plain', 'pw');
    const refused = await srv.request('GET', `/v2/accounts/${a.id}/api_key`, { token: plain });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(a.apiKey);
    const boss = await srv.userLogin('Reseller A', 'boss', 'pw');
    expect((await srv.request('GET', `/v2/accounts/${a1.id}/api_key`, { token: boss })).status).toBe(200);
  });

  it('validation errors are Kazoo-shaped and store nothing', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${a.id}`, { token: srv.adminToken, data: { realm: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('validation error');
    expect(r.body.data.name.required.message).toBe('Field is required but missing');
    expect(r.body.data.realm.minLength).toMatchObject({ target: 4, value: 'x' });
    const wrongType = await srv.request('PUT', `/v2/accounts/${a.id}`, { token: srv.adminToken, data: { name: { no: 1 } } });
    expect(wrongType.body.data.name.type.message).toMatch(/Value did not match type/);
  });

  it('an empty realm is none: a new account gets one of its own, a change keeps the one it has', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${a.id}`, { token: srv.adminToken, data: { name: 'No Realm Yet', realm: '' } });
    expect(r.status).toBe(201);
    expect(r.body.data.realm).toBe(`${r.body.data.id.slice(0, 8)}.tel.local`);
    const kept = await srv.request('POST', `/v2/accounts/${r.body.data.id}`, { token: srv.adminToken, data: { name: 'No Realm Yet', realm: '' } });
    expect(kept.status).toBe(200);
    expect(kept.body.data.realm).toBe(r.body.data.realm);
  });

  it('a realm already in use is refused with the unique rule', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${a.id}`, { token: srv.adminToken, data: { name: 'Dup', realm: srv.master.realm } });
    expect(r.status).toBe(400);
    expect(r.body.data.realm.unique).toBeTruthy();
  });

  it('a whole document read and posted back keeps unknown fields and ignores server fields', async () => {
    const got = await srv.request('GET', `/v2/accounts/${a1.id}`, { token: srv.adminToken });
    const doc = { ...got.body.data, _read_only: { created: 1 }, custom_thing: { a: 1 }, ui_metadata: { version: '4.3', ui: 'monster-ui', origin: 'accounts' } };
    const r = await srv.request('POST', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: doc });
    expect(r.status).toBe(200);
    expect(r.body.data.custom_thing).toEqual({ a: 1 });
    expect(r.body.data.ui_metadata.ui).toBe('monster-ui');
    expect(r.body.data._read_only).toBeUndefined();
  });

  it('super-duper and reseller flags, billing fields or a creation time sent by a client are not stored: the answer tells the stored ones', async () => {
    const master = await srv.request('GET', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken });
    expect(master.body.data.superduper_admin).toBe(true);
    const token = await srv.apiLogin(a1.apiKey);
    const sent = { superduper_admin: true, is_reseller: true, created: 5, reseller_id: a1.id, billing_mode: 'normal', wnm_allow_additions: true };
    const patched = await srv.request('PATCH', `/v2/accounts/${a1.id}`, { token, data: sent });
    expect(patched.status).toBe(200);
    const got = await srv.request('GET', `/v2/accounts/${a1.id}`, { token });
    expect(got.body.data).toMatchObject({ superduper_admin: false, is_reseller: false, reseller_id: srv.master.account_id, wnm_allow_additions: false });
    expect(got.body.data.created).toBeGreaterThan(63_000_000_000);
    const whole = await srv.request('POST', `/v2/accounts/${a1.id}`, { token, data: { ...got.body.data, ...sent } });
    expect(whole.status).toBe(200);
    expect(whole.body.data.superduper_admin).toBe(false);
    expect((await srv.request('GET', '/v2/system_configs', { token })).status).toBe(403);
  });

  // cb_accounts leak_pvt_fields/2: every answer but a deletion's carries the account's private
  // fields, and billing_mode depends on who asks (leak_billing_mode/2). Kazoo's accounts.md shows
  // `billing_mode: manual` and `reseller_id: "undefined"` for a child of the master: its example
  // predates the source, which answers the caller's view (the source wins).
  it("answers carry Kazoo's private fields; billing_mode is the caller's view; a deletion answers the stored document", async () => {
    const child = await srv.request('PUT', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: { name: 'Leak Child' } });
    expect(child.status).toBe(201);
    const fields = { superduper_admin: false, is_reseller: false, wnm_allow_additions: false, enabled: true, reseller_id: srv.master.account_id };
    // the master's admin: the master account is the child's reseller
    expect(child.body.data).toMatchObject({ ...fields, billing_mode: 'limits_only' });
    expect(child.body.data.created).toBeGreaterThan(63_000_000_000);
    // the parent's own token: the master is the reseller, and the caller is not it
    const parentToken = await srv.apiLogin(a1.apiKey);
    const seen = await srv.request('GET', `/v2/accounts/${child.body.data.id}`, { token: parentToken });
    expect(seen.body.data).toMatchObject({ ...fields, billing_mode: 'normal' });
    const deleted = await srv.request('DELETE', `/v2/accounts/${child.body.data.id}`, { token: srv.adminToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id: child.body.data.id, name: 'Leak Child', _read_only: { deleted: true } });
    for (const key of ['billing_mode', 'superduper_admin', 'is_reseller', 'reseller_id', 'wnm_allow_additions', 'created']) {
      expect(deleted.body.data[key]).toBeUndefined();
    }
  });

  it('string forms are coerced: "false" becomes false', async () => {
    const r = await srv.request('PATCH', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: { enabled: 'false' } });
    expect(r.status).toBe(200);
    expect(r.body.data.enabled).toBe(false);
    await srv.request('PATCH', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: { enabled: true } });
  });

  it('a stale revision in If-Match answers 412 (cowboy_rest:if_match/3) and changes nothing', async () => {
    const got = await srv.request('GET', `/v2/accounts/${a1.id}`, { token: srv.adminToken });
    const rev = got.body.revision;
    const ok = await srv.request('PATCH', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: { timezone: 'Etc/UTC' }, headers: { 'If-Match': rev } });
    expect(ok.status).toBe(200);
    const stale = await srv.request('PATCH', `/v2/accounts/${a1.id}`, { token: srv.adminToken, data: { timezone: 'Europe/Paris' }, headers: { 'If-Match': rev } });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe('precondition_failed');
    const after = await srv.request('GET', `/v2/accounts/${a1.id}`, { token: srv.adminToken });
    expect(after.body.data.timezone).toBe('Etc/UTC');
  });

  it('an account with sub-accounts cannot be deleted; a leaf can, answering the deleted document', async () => {
    expect((await srv.request('DELETE', `/v2/accounts/${a.id}`, { token: srv.adminToken })).status).toBe(400);
    const leaf = await createSubAccount(srv, b.id, 'Leaf');
    const del = await srv.request('DELETE', `/v2/accounts/${leaf.id}`, { token: srv.adminToken, data: { ui_metadata: { ui: 'x' } } });
    expect(del.status).toBe(200);
    expect(del.body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', `/v2/accounts/${leaf.id}`, { token: srv.adminToken })).status).toBe(404);
  });
});

describe('users', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv.close());

  it('creates users with priv_level, never shows the password, and lets them log in', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Users Co');
    const base = `/v2/accounts/${sub.id}/users`;
    const r = await srv.request('PUT', base, { token: srv.adminToken, data: { username: 'alice', password: 'pw1', first_name: 'F', last_name: 'L', priv_level: 'admin' } });
    expect(r.status).toBe(201);
    expect(r.body.data.password).toBeUndefined();
    expect(r.body.data.priv_level).toBe('admin');
    const dflt = await srv.request('PUT', base, { token: srv.adminToken, data: { username: 'bob', password: 'pw2', first_name: 'F', last_name: 'L' } });
    expect(dflt.body.data.priv_level).toBe('user');
    const dup = await srv.request('PUT', base, { token: srv.adminToken, data: { username: 'ALICE', password: 'x', first_name: 'F', last_name: 'L' } });
    expect(dup.status).toBe(400);
    expect(dup.body.data.username.unique).toBeTruthy();
    const bad = await srv.request('PUT', base, { token: srv.adminToken, data: { username: 'carol', password: 'x', first_name: 'F', last_name: 'L', priv_level: 'god' } });
    expect(bad.body.data.priv_level.enum.target).toEqual(['user', 'admin']);
    const token = await srv.userLogin('Users Co', 'alice', 'pw1');
    const who = await srv.request('GET', '/v2/token_auth', { token });
    expect(who.body.data.owner_id).toBe(r.body.data.id);
    const list = await srv.request('GET', base, { token });
    expect(list.body.data.map((u: { username: string }) => u.username).sort()).toEqual(['alice', 'bob']);
  });

  it('a new password takes effect; deleting a user revokes their tokens', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Pw Co');
    const base = `/v2/accounts/${sub.id}/users`;
    const u = await srv.request('PUT', base, { token: srv.adminToken, data: { username: 'dave', password: 'old', first_name: 'F', last_name: 'L' } });
    const token = await srv.userLogin('Pw Co', 'dave', 'old');
    await srv.request('PATCH', `${base}/${u.body.data.id}`, { token: srv.adminToken, data: { password: 'new' } });
    await expect(srv.userLogin('Pw Co', 'dave', 'old')).rejects.toThrow(/401/);
    await srv.userLogin('Pw Co', 'dave', 'new');
    await srv.request('DELETE', `${base}/${u.body.data.id}`, { token: srv.adminToken });
    expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(401);
  });
});

describe('system configuration', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv.close());

  it('needs a super-duper admin token', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Cfg Co');
    const token = await srv.apiLogin(sub.apiKey);
    expect((await srv.request('GET', '/v2/system_configs/crossbar.auth', { token })).status).toBe(403);
    expect((await srv.request('POST', '/v2/system_configs/crossbar.auth', { token, data: { default: {} } })).status).toBe(403);
  });

  it('POST replaces the category document, GET answers the same shape; a flat data becomes default', async () => {
    const r = await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: { attempt_failure_count: 3 } } });
    expect(r.body.data).toEqual({ id: 'webhooks', default: { attempt_failure_count: 3 } });
    const flat = await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { request_timeout_ms: 500 } });
    expect(flat.body.data).toEqual({ id: 'webhooks', default: { request_timeout_ms: 500 } });
    const got = await srv.request('GET', '/v2/system_configs/webhooks', { token: srv.adminToken });
    expect(got.body.data).toEqual(flat.body.data);
  });

  it("Kazoo's category names are aliases of the seed's", async () => {
    await srv.request('POST', '/v2/system_configs/crossbar.resources', { token: srv.adminToken, data: { default: { job_recover_threshold_s: 5 } } });
    const got = await srv.request('GET', '/v2/system_configs/api.resources', { token: srv.adminToken });
    expect(got.body.data.default.job_recover_threshold_s).toBe(5);
  });

  it('?with_defaults=true fills in the built-in settings under default, stored ones winning', async () => {
    expect((await srv.request('GET', '/v2/system_configs/crossbar.auth', { token: srv.adminToken })).status).toBe(404);
    const r = await srv.request('GET', '/v2/system_configs/crossbar.auth?with_defaults=true', { token: srv.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id: 'crossbar.auth',
      default: { token_expiry_s: 3600, token_max_lifetime_s: 86400, login_max_failures: 10, login_failure_window_s: 300, auth_modules: DEFAULT_AUTH_MODULES, available_auth_methods: DEFAULT_AUTH_METHODS },
    });
    await srv.request('POST', '/v2/system_configs/api.token_restrictions', { token: srv.adminToken, data: { default: { default_priv_level: 'user' } } });
    const t = await srv.request('GET', '/v2/system_configs/crossbar.token_restrictions?with_defaults=true', { token: srv.adminToken });
    expect(t.body.data.default.default_priv_level).toBe('user');
  });

  it('an unset category answers 404', async () => {
    expect((await srv.request('GET', '/v2/system_configs/never.set', { token: srv.adminToken })).status).toBe(404);
  });
});

describe('the realm an account gets when it names none', () => {
  it("is its id's first eight characters, or its whole id when another account already has those", () => {
    const tmp = tempDir('tel-realm-');
    const core = openCore(join(tmp.dir, 'tel.db'));
    try {
      const init = initDatabase(core, { account: 'Lab', username: 'admin', password: 'admin-pass' });
      const first = createAccount(core, { name: 'First' }, { parentId: init.account_id, id: `abcdef01${'0'.repeat(24)}` });
      expect(first.realm).toBe('abcdef01.tel.local');
      const id = `abcdef01${'1'.repeat(24)}`;
      const second = createAccount(core, { name: 'Second' }, { parentId: init.account_id, id });
      expect(second.realm).toBe(`${id}.tel.local`);
    } finally {
      closeCore(core);
      tmp.cleanup();
    }
  });
});
