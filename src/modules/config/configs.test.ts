import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';

describe('account configuration (/v2/accounts/{id}/configs/{category})', () => {
  let srv: TestServer;
  let token: string;
  let account: { id: string; apiKey: string };
  const path = (category: string) => `/v2/accounts/${account.id}/configs/${category}`;

  beforeAll(async () => {
    srv = await startTestServer();
    token = srv.adminToken;
    account = await createSubAccount(srv, srv.master.account_id, 'Config Co');
  });
  afterAll(() => srv?.close());

  it('any category: the account\'s settings over the system default node, id configs_<category>; only the difference is stored', async () => {
    expect((await srv.request('GET', path('conferences'), { token })).body.data).toEqual({ id: 'configs_conferences' });
    await srv.request('POST', '/v2/system_configs/conferences', { token, data: { default: { pin_timeout: 5000, number_timeout: 5000 } } });
    const inherited = await srv.request('GET', path('conferences'), { token });
    expect(inherited.body.data).toEqual({ pin_timeout: 5000, number_timeout: 5000, id: 'configs_conferences' });
    const put = await srv.request('PUT', path('conferences'), { token, data: { pin_timeout: 3000, number_timeout: 5000, entry_tone: 'tone_stream://%(1000,0,2600)' } });
    expect(put.status).toBe(201);
    expect(put.body.data).toEqual({ pin_timeout: 3000, number_timeout: 5000, entry_tone: 'tone_stream://%(1000,0,2600)', id: 'configs_conferences' });
    // number_timeout equals the system's: not stored, so it follows a later system change
    await srv.request('POST', '/v2/system_configs/conferences', { token, data: { default: { pin_timeout: 5000, number_timeout: 7000 } } });
    expect((await srv.request('GET', path('conferences'), { token })).body.data.number_timeout).toBe(7000);
    const patch = await srv.request('PATCH', path('conferences'), { token, data: { pin_timeout: 2000 } });
    expect(patch.body.data).toMatchObject({ pin_timeout: 2000, entry_tone: 'tone_stream://%(1000,0,2600)' });
    // a PATCH merges deeply, as a document's: nested settings kept, null removes
    await srv.request('PATCH', path('conferences'), { token, data: { profiles: { a: { rate: 8000, caller_controls: 'default' } } } });
    const deep = await srv.request('PATCH', path('conferences'), { token, data: { profiles: { a: { rate: 16000, caller_controls: null } } } });
    expect(deep.body.data.profiles).toEqual({ a: { rate: 16000 } });
    const post = await srv.request('POST', path('conferences'), { token, data: { entry_tone: 'x' } });
    expect(post.body.data).toEqual({ pin_timeout: 5000, number_timeout: 7000, entry_tone: 'x', id: 'configs_conferences' });
    const del = await srv.request('DELETE', path('conferences'), { token });
    expect(del.body.data).toEqual({ pin_timeout: 5000, number_timeout: 7000, id: 'configs_conferences' });
  });

  // cb_system_configs summary/1 lists the stored categories through crossbar_view: paged, with page_size
  it('GET /v2/system_configs lists the stored categories by name, paged', async () => {
    for (const c of ['zz.one', 'zz.two', 'zz.three']) await srv.request('POST', `/v2/system_configs/${c}`, { token, data: { default: { x: 1 } } });
    const all = await srv.request('GET', '/v2/system_configs', { token });
    expect(all.body.page_size).toBe(all.body.data.length);
    expect(all.body.data).toEqual([...all.body.data].sort());
    expect(all.body.data).toEqual(expect.arrayContaining(['zz.one', 'zz.three', 'zz.two']));
    const first = await srv.request('GET', '/v2/system_configs?page_size=2&descending=true', { token });
    expect(first.body.data).toEqual(['zz.two', 'zz.three']);
    expect(first.body.page_size).toBe(2);
    const next = await srv.request('GET', `/v2/system_configs?page_size=2&descending=true&start_key=${first.body.next_start_key}`, { token });
    expect(next.body.data[0]).toBe('zz.one');
  });

  it('the webhooks category keeps its checks and its built-in settings', async () => {
    const bad = await srv.request('PATCH', path('webhooks'), { token, data: { attempt_failure_count: 'many' } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.attempt_failure_count.type).toBeTruthy();
    const ok = await srv.request('PATCH', path('webhooks'), { token, data: { attempt_failure_count: '3' } });
    expect(ok.body.data).toMatchObject({ attempt_failure_count: 3, request_timeout_ms: 10000, id: 'configs_webhooks' });
  });

  it("deny_private_networks is the system's: an account's settings refuse it with a 400 that says where it goes", async () => {
    for (const method of ['PATCH', 'PUT', 'POST']) {
      const r = await srv.request(method, path('webhooks'), { token, data: { deny_private_networks: true } });
      expect(r.status, `${method} ${r.text}`).toBe(400);
      expect(r.body.data.deny_private_networks.forbidden).toEqual({
        message:
          'deny_private_networks is a system setting, for every account: set it in system_configs/webhooks (tel config set webhooks deny_private_networks …); an account cannot override it',
        value: true,
      });
    }
    const cli = await runTel(['config', 'set', 'webhooks', 'deny_private_networks', 'true', '--account', account.id, '--db', srv.dbFile]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/deny_private_networks is a system setting/);
    // the settings read back whole and posted again carry the value the account inherits: no setting of it
    const view = (await srv.request('GET', path('webhooks'), { token })).body.data;
    expect(view.deny_private_networks).toBe(false);
    expect((await srv.request('POST', path('webhooks'), { token, data: { ...view, retry_base_delay_ms: 2000 } })).status).toBe(200);
    expect((await runTel(['config', 'set', 'webhooks', 'deny_private_networks', 'true', '--db', srv.dbFile])).code).toBe(0);
    try {
      const now = (await srv.request('GET', path('webhooks'), { token })).body.data;
      expect(now.deny_private_networks).toBe(true);
      expect((await srv.request('POST', path('webhooks'), { token, data: now })).status).toBe(200);
      expect((await srv.request('PATCH', path('webhooks'), { token, data: { deny_private_networks: false } })).status).toBe(400);
    } finally {
      await runTel(['config', 'set', 'webhooks', 'deny_private_networks', 'false', '--db', srv.dbFile]);
    }
    // one stored by an earlier tel (it never applied) goes with the next change
    srv.core.db.prepare("UPDATE account_configs SET doc = json_set(doc, '$.deny_private_networks', json('true')) WHERE account_id = ? AND category = 'webhooks'").run(account.id);
    expect((await srv.request('PATCH', path('webhooks'), { token, data: { retry_base_delay_ms: 3000 } })).status).toBe(200);
    const stored = srv.core.db.prepare("SELECT doc FROM account_configs WHERE account_id = ? AND category = 'webhooks'").get(account.id) as { doc: string };
    expect(JSON.parse(stored.doc)).toMatchObject({ retry_base_delay_ms: 3000 });
    expect(JSON.parse(stored.doc)).not.toHaveProperty('deny_private_networks');
  });

  it('who may: callers of the account read, its admins change, others neither', async () => {
    await srv.request('PUT', `/v2/accounts/${account.id}/users`, { token, data: { username: 'clerk', password: 'pw-clerk-1', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' } });
    const clerk = await srv.userLogin('Config Co', 'clerk', 'pw-clerk-1');
    expect((await srv.request('GET', path('callflow'), { token: clerk })).status).toBe(200);
    expect((await srv.request('POST', path('callflow'), { token: clerk, data: { a: 1 } })).status).toBe(403);
    expect((await srv.request('DELETE', path('callflow'), { token: clerk })).status).toBe(403);
    expect((await srv.request('POST', path('callflow'), { token: await srv.apiLogin(account.apiKey), data: { a: 1 } })).status).toBe(200);
    const other = await createSubAccount(srv, srv.master.account_id, 'Config Other');
    expect((await srv.request('GET', path('callflow'), { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
    expect((await srv.request('GET', `/v2/accounts/${'d'.repeat(32)}/configs/callflow`, { token })).status).toBe(404);
  });

  it('tel config get/set/delete --account works on the same settings', async () => {
    const set = await runTel(['config', 'set', 'conferences', 'pin_timeout', '4000', '--account', account.id, '--db', srv.dbFile]);
    expect(set.code, set.stderr).toBe(0);
    expect((await srv.request('GET', path('conferences'), { token })).body.data.pin_timeout).toBe(4000);
    const got = await runTel(['config', 'get', 'conferences', '--account', account.id, '--db', srv.dbFile]);
    expect(JSON.parse(got.stdout)).toEqual({ pin_timeout: 4000, number_timeout: 7000, id: 'configs_conferences' });
    expect((await runTel(['config', 'get', 'conferences', 'pin_timeout', '--account', account.id, '--db', srv.dbFile])).stdout.trim()).toBe('4000');
    const bad = await runTel(['config', 'set', 'webhooks', 'attempt_failure_count', '"many"', '--account', account.id, '--db', srv.dbFile]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/attempt_failure_count/);
    expect((await runTel(['config', 'delete', 'conferences', '--account', account.id, '--db', srv.dbFile])).code).toBe(0);
    expect((await srv.request('GET', path('conferences'), { token })).body.data.pin_timeout).toBe(5000);
    expect((await runTel(['config', 'get', 'conferences', '--account', 'f'.repeat(32), '--db', srv.dbFile])).code).toBe(1);
  });
});

describe("an account's configuration over its reseller's (Kazoo's get_config: account, reseller, system, built-in)", () => {
  let srv: TestServer;
  let sink: Sink;
  let token: string;
  /** master (a reseller) → R → C, master → Direct */
  let r: { id: string; apiKey: string };
  let c: { id: string; apiKey: string };
  let direct: { id: string; apiKey: string };
  const path = (account: string, category = 'conferences') => `/v2/accounts/${account}/configs/${category}`;
  const view = async (account: string, category = 'conferences') => (await srv.request('GET', path(account, category), { token })).body.data;
  const stored = (account: string, category = 'conferences') => {
    const row = srv.core.db.prepare('SELECT doc FROM account_configs WHERE account_id = ? AND category = ?').get(account, category) as { doc: string } | undefined;
    return row && JSON.parse(row.doc);
  };

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    token = srv.adminToken;
    r = await createSubAccount(srv, srv.master.account_id, 'Reseller Co');
    c = await createSubAccount(srv, r.id, 'Customer Co');
    direct = await createSubAccount(srv, srv.master.account_id, 'Direct Co');
    expect((await srv.request('PUT', `/v2/accounts/${r.id}/reseller`, { token })).status).toBe(201);
    await srv.request('POST', '/v2/system_configs/conferences', { token, data: { default: { pin_timeout: 5000, number_timeout: 5000, controls: { a: { rate: 8000 } } } } });
    await srv.request('POST', path(srv.master.account_id), { token, data: { pin_timeout: 4000 } });
    await srv.request('POST', path(r.id), { token, data: { number_timeout: 7000, controls: { b: { rate: 16000 } } } });
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  it("the reseller's settings come between the system's and the account's; the nearest reseller only", async () => {
    // C's reseller is R: R's settings over the system's, deeply merged (the keys an account may set: Kazoo's account_config.conferences); the master's (R's reseller) are not C's
    expect(await view(c.id)).toEqual({ pin_timeout: 5000, number_timeout: 7000, controls: { a: { rate: 8000 }, b: { rate: 16000 } }, id: 'configs_conferences' });
    // R's reseller is the master: the master's settings under R's own
    expect(await view(r.id)).toMatchObject({ pin_timeout: 4000, number_timeout: 7000 });
    expect(await view(direct.id)).toMatchObject({ pin_timeout: 4000, number_timeout: 5000 });
    // the master is its own reseller: its settings over the system's, nothing more
    expect(await view(srv.master.account_id)).toEqual({ pin_timeout: 4000, number_timeout: 5000, controls: { a: { rate: 8000 } }, id: 'configs_conferences' });
  });

  it("the account's own win; only what differs from the reseller's and the system's is stored, and follows them", async () => {
    const post = await srv.request('POST', path(c.id), { token, data: { pin_timeout: 3000, number_timeout: 7000, controls: { b: { rate: 16000 } } } });
    expect(post.status).toBe(200);
    expect(post.body.data).toMatchObject({ pin_timeout: 3000, number_timeout: 7000 });
    // number_timeout and controls are R's: not stored for C
    expect(stored(c.id)).toEqual({ pin_timeout: 3000 });
    await srv.request('PATCH', path(r.id), { token, data: { number_timeout: 9000 } });
    expect(await view(c.id)).toMatchObject({ pin_timeout: 3000, number_timeout: 9000 });
    // a PATCH compares with the same inherited settings
    await srv.request('PATCH', path(c.id), { token, data: { number_timeout: 9000, entry_tone: 'beep' } });
    expect(stored(c.id)).toEqual({ pin_timeout: 3000, entry_tone: 'beep' });
    // DELETE: back to what C inherits
    expect((await srv.request('DELETE', path(c.id), { token })).body.data).toMatchObject({ pin_timeout: 5000, number_timeout: 9000 });
    expect(stored(c.id)).toBeUndefined();
  });

  it('demoting the reseller makes the next reseller above the middle layer; the CLI shows the same view', async () => {
    expect((await srv.request('DELETE', `/v2/accounts/${r.id}/reseller`, { token })).status).toBe(200);
    try {
      // C's reseller is now the master: its pin_timeout, not R's number_timeout
      expect(await view(c.id)).toMatchObject({ pin_timeout: 4000, number_timeout: 5000 });
      const got = await runTel(['config', 'get', 'conferences', '--account', c.id, '--db', srv.dbFile]);
      expect(JSON.parse(got.stdout)).toMatchObject({ pin_timeout: 4000, number_timeout: 5000 });
    } finally {
      await srv.request('PUT', `/v2/accounts/${r.id}/reseller`, { token });
    }
    const got = await runTel(['config', 'get', 'conferences', '--account', c.id, '--db', srv.dbFile]);
    expect(JSON.parse(got.stdout)).toMatchObject({ pin_timeout: 5000, number_timeout: 9000 });
  });

  it("deliveries follow the reseller's webhooks settings: one failure disables a hook of its customer, not of another account", async () => {
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: { default: { attempt_failure_count: 100 } } });
    expect((await srv.request('POST', path(r.id, 'webhooks'), { token, data: { attempt_failure_count: 1 } })).status).toBe(200);
    expect((await view(c.id, 'webhooks')).attempt_failure_count).toBe(1);
    expect((await view(direct.id, 'webhooks')).attempt_failure_count).toBe(100);
    sink.respond(() => ({ status: 500 }));
    const hooks: Record<string, string> = {};
    for (const account of [c.id, direct.id]) {
      const made = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token, data: { name: 'Broken', hook: 'channel_create', uri: `${sink.url}/${account}`, retries: 0 } });
      expect(made.status, made.text).toBe(201);
      hooks[account] = made.body.data.id;
      expect((await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', answer: false } })).status).toBe(201);
    }
    await sink.waitFor(2, { filter: (q) => q.path === `/${c.id}` || q.path === `/${direct.id}` });
    const hookOf = async (account: string) => (await srv.request('GET', `/v2/accounts/${account}/webhooks/${hooks[account]}`, { token })).body.data;
    let disabled: Record<string, unknown> = {};
    for (let i = 0; i < 200 && (disabled = await hookOf(c.id)).enabled !== false; i++) await new Promise((res) => setTimeout(res, 25));
    expect(disabled).toMatchObject({ enabled: false });
    expect(await hookOf(direct.id)).toMatchObject({ enabled: true });
  });
});

describe('system configuration nodes (/v2/system_configs/{category}[/{node}]) and PATCH', () => {
  let srv: TestServer;
  let token: string;
  beforeAll(async () => {
    srv = await startTestServer();
    token = srv.adminToken;
  });
  afterAll(() => srv?.close());

  it('a node keeps what differs from the default node; with_defaults merges; DELETE removes it', async () => {
    await srv.request('POST', '/v2/system_configs/sysconf', { token, data: { default: { acl_request_timeout_ms: 2000, acl_request_timeout_fudge_ms: 100 } } });
    expect((await srv.request('GET', '/v2/system_configs/sysconf/node1@lab', { token })).body.data).toEqual({ id: 'sysconf/node1@lab' });
    const post = await srv.request('POST', '/v2/system_configs/sysconf/node1@lab', { token, data: { acl_request_timeout_fudge_ms: 101, acl_request_timeout_ms: 2000 } });
    expect(post.status).toBe(200);
    expect(post.body.data).toEqual({ acl_request_timeout_fudge_ms: 101, id: 'sysconf/node1@lab' });
    const patch = await srv.request('PATCH', '/v2/system_configs/sysconf/node1@lab', { token, data: { acl_request_timeout_fudge_ms: 102 } });
    expect(patch.body.data).toEqual({ acl_request_timeout_fudge_ms: 102, id: 'sysconf/node1@lab' });
    const merged = await srv.request('GET', '/v2/system_configs/sysconf/node1@lab?with_defaults=true', { token });
    expect(merged.body.data).toEqual({ acl_request_timeout_ms: 2000, acl_request_timeout_fudge_ms: 102, id: 'sysconf/node1@lab' });
    const doc = await srv.request('GET', '/v2/system_configs/sysconf', { token });
    expect(doc.body.data).toEqual({ id: 'sysconf', default: { acl_request_timeout_ms: 2000, acl_request_timeout_fudge_ms: 100 }, 'node1@lab': { acl_request_timeout_fudge_ms: 102 } });
    const del = await srv.request('DELETE', '/v2/system_configs/sysconf/node1@lab', { token });
    // cb_system_configs delete/4: the node's id only; a node not there is response_bad_identifier/2's 404
    expect(del.body.data).toEqual({ id: 'sysconf/node1@lab' });
    const again = await srv.request('DELETE', '/v2/system_configs/sysconf/node1@lab', { token });
    expect([again.status, again.body.data]).toEqual([404, ['node1@lab']]);
    expect((await srv.request('GET', '/v2/system_configs/sysconf', { token })).body.data).toEqual({ id: 'sysconf', default: { acl_request_timeout_ms: 2000, acl_request_timeout_fudge_ms: 100 } });
  });

  it('the default node as a node; built-in settings with with_defaults', async () => {
    const post = await srv.request('POST', '/v2/system_configs/crossbar.auth/default', { token, data: { token_expiry_s: 600 } });
    expect(post.body.data).toEqual({ token_expiry_s: 600, id: 'crossbar.auth/default' });
    const merged = await srv.request('GET', '/v2/system_configs/crossbar.auth/default?with_defaults=true', { token });
    expect(merged.body.data).toMatchObject({ token_expiry_s: 600, token_max_lifetime_s: 86400, id: 'crossbar.auth/default' });
    await srv.request('DELETE', '/v2/system_configs/crossbar.auth', { token });
  });

  it('PATCH of a category merges each node sent; its checks still apply', async () => {
    await srv.request('POST', '/v2/system_configs/patched', { token, data: { default: { a: 1, b: 2 }, zone1: { a: 3 } } });
    const r = await srv.request('PATCH', '/v2/system_configs/patched', { token, data: { default: { b: 5 }, zone2: { c: 1 } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: 'patched', default: { a: 1, b: 5 }, zone1: { a: 3 }, zone2: { c: 1 } });
    const flat = await srv.request('PATCH', '/v2/system_configs/patched', { token, data: { a: 9 } });
    expect(flat.body.data.default).toEqual({ a: 9, b: 5 });
    const bad = await srv.request('PATCH', '/v2/system_configs/api.token_restrictions', { token, data: { default: { cb_api_auth: 'nonsense' } } });
    expect(bad.status).toBe(400);
  });

  it('only a super-duper admin', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Nodes Co');
    const t = await srv.apiLogin(sub.apiKey);
    expect((await srv.request('GET', '/v2/system_configs/sysconf/n', { token: t })).status).toBe(403);
    expect((await srv.request('POST', '/v2/system_configs/sysconf/n', { token: t, data: { a: 1 } })).status).toBe(403);
    expect((await srv.request('PATCH', '/v2/system_configs/sysconf', { token: t, data: { a: 1 } })).status).toBe(403);
    expect((await srv.request('DELETE', '/v2/system_configs/sysconf/n', { token: t })).status).toBe(403);
  });
});
