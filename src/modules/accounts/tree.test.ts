import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';
import { runTel } from '../../../test/helpers/cli.js';

/** master → R (reseller) → { C1 → G1, C2 }, master → Other */
describe('the account tree: parents, tree, siblings, move, reseller', () => {
  let srv: TestServer;
  let sink: Sink;
  let token: string;
  let r: { id: string; apiKey: string };
  let c1: { id: string; apiKey: string };
  let c2: { id: string; apiKey: string };
  let g1: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  const ids = (body: { data: { id: string }[] }) => body.data.map((a) => a.id);

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    token = srv.adminToken;
    r = await createSubAccount(srv, srv.master.account_id, 'Reseller R');
    c1 = await createSubAccount(srv, r.id, 'Customer One');
    c2 = await createSubAccount(srv, r.id, 'Customer Two');
    g1 = await createSubAccount(srv, c1.id, 'Grandchild');
    other = await createSubAccount(srv, srv.master.account_id, 'Other');
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('parents and tree: the ancestors {id, name}, root first, paged; a token sees them from its own account down', async () => {
    const all = await srv.request('GET', `/v2/accounts/${g1.id}/parents`, { token });
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual([
      { id: srv.master.account_id, name: 'Master' },
      { id: r.id, name: 'Reseller R' },
      { id: c1.id, name: 'Customer One' },
    ]);
    expect(all.body.page_size).toBe(3);
    expect((await srv.request('GET', `/v2/accounts/${g1.id}/tree`, { token })).body.data).toEqual(all.body.data);
    const rToken = await srv.apiLogin(r.apiKey);
    expect(ids((await srv.request('GET', `/v2/accounts/${g1.id}/tree`, { token: rToken })).body)).toEqual([r.id, c1.id]);
    expect(ids((await srv.request('GET', `/v2/accounts/${g1.id}/parents?page_size=1`, { token: rToken })).body)).toEqual([r.id]);
    expect((await srv.request('GET', `/v2/accounts/${r.id}/parents`, { token: rToken })).body.data).toEqual([]);
    expect((await srv.request('GET', `/v2/accounts/${other.id}/parents`, { token: rToken })).status).toBe(403);
  });

  it('siblings: the accounts under the same parent with descendants_count; never of the token\'s own account', async () => {
    const s = await srv.request('GET', `/v2/accounts/${c1.id}/siblings`, { token });
    expect(s.status).toBe(200);
    expect(s.body.data).toEqual([
      // Kazoo's accounts/listing_by_children view: no tree, flags always
      { id: c1.id, name: 'Customer One', realm: expect.any(String), descendants_count: 1, flags: [] },
      { id: c2.id, name: 'Customer Two', realm: expect.any(String), descendants_count: 0, flags: [] },
    ]);
    const rToken = await srv.apiLogin(r.apiKey);
    expect(ids((await srv.request('GET', `/v2/accounts/${c2.id}/siblings`, { token: rToken })).body)).toEqual([c1.id, c2.id]);
    const own = await srv.request('GET', `/v2/accounts/${r.id}/siblings`, { token: rToken });
    expect(own.status).toBe(403);
    expect(own.text).not.toContain(other.id);
    // by name, as Kazoo lists an account's children
    expect(ids((await srv.request('GET', `/v2/accounts/${r.id}/siblings`, { token })).body)).toEqual([other.id, r.id]);
    await srv.request('POST', '/v2/system_configs/crossbar.accounts', { token, data: { default: { allow_sibling_listing: false } } });
    expect((await srv.request('GET', `/v2/accounts/${c2.id}/siblings`, { token: rToken })).status).toBe(403);
    expect((await srv.request('GET', `/v2/accounts/${c2.id}/siblings`, { token })).status).toBe(200);
    await srv.request('DELETE', '/v2/system_configs/crossbar.accounts', { token });
  });

  it('reseller: only a super-duper admin promotes and demotes; reseller_id of the accounts below follows', async () => {
    const rToken = await srv.apiLogin(r.apiKey);
    expect((await srv.request('PUT', `/v2/accounts/${c1.id}/reseller`, { token: rToken })).status).toBe(403);
    const call = async (account: string) =>
      (await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', answer: false } })).body.data.events[0].reseller_id;
    expect(await call(g1.id)).toBe(srv.master.account_id);
    const up = await srv.request('PUT', `/v2/accounts/${r.id}/reseller`, { token });
    expect(up.status).toBe(201);
    expect(up.body.data).toMatchObject({ id: r.id, is_reseller: true });
    expect(await call(g1.id)).toBe(r.id);
    expect(await call(c2.id)).toBe(r.id);
    // a reseller's own reseller is the one above it
    expect(await call(r.id)).toBe(srv.master.account_id);
    expect((await srv.request('GET', '/v2/token_auth', { token: await srv.apiLogin(c2.apiKey) })).body.data.reseller_id).toBe(r.id);
    // a GET of an account answers its reseller too (Kazoo's cb_accounts; Account Manager reads it), never stored from a write
    const got = await srv.request('GET', `/v2/accounts/${c2.id}`, { token });
    expect(got.body.data.reseller_id).toBe(r.id);
    expect((await srv.request('GET', `/v2/accounts/${r.id}`, { token })).body.data.reseller_id).toBe(srv.master.account_id);
    const posted = await srv.request('POST', `/v2/accounts/${c2.id}`, { token, data: { ...got.body.data, reseller_id: other.id } });
    expect(posted.status).toBe(200);
    expect(posted.body.data.reseller_id).toBe(r.id);
    expect((await srv.request('GET', `/v2/accounts/${c2.id}`, { token })).body.data.reseller_id).toBe(r.id);
    const below = await srv.request('PUT', `/v2/accounts/${c1.id}/reseller`, { token });
    expect(below.status).toBe(201);
    expect(await call(g1.id)).toBe(c1.id);
    const refused = await srv.request('DELETE', `/v2/accounts/${r.id}/reseller`, { token });
    expect(refused.status).toBe(400);
    expect(refused.body.data.account.has_reseller_descendants).toBeTruthy();
    expect((await srv.request('DELETE', `/v2/accounts/${c1.id}/reseller`, { token })).body.data.is_reseller).toBe(false);
    expect(await call(g1.id)).toBe(r.id);
    expect((await srv.request('PUT', `/v2/accounts/${srv.master.account_id}/reseller`, { token })).status).toBe(403);
    expect((await srv.request('DELETE', `/v2/accounts/${srv.master.account_id}/reseller`, { token })).status).toBe(403);
    expect((await srv.request('POST', `/v2/accounts/${r.id}/reseller`, { token })).status).toBe(405);
  });

  it('move: the subtree goes with the account; the new ancestors\' hooks with include_subaccounts get its events', async () => {
    const hook = await srv.request('PUT', `/v2/accounts/${other.id}/webhooks`, {
      token,
      data: { name: 'sub', hook: 'channel_create', uri: `${sink.url}/moved`, format: 'json', include_subaccounts: true },
    });
    expect(hook.status).toBe(201);
    const moved = await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: { to: other.id } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ id: c1.id, name: 'Customer One' });
    const desc = await srv.request('GET', `/v2/accounts/${other.id}/descendants`, { token });
    expect(desc.body.data.map((d: { id: string; tree: string[] }) => [d.id, d.tree])).toEqual([
      [c1.id, [srv.master.account_id, other.id]],
      [g1.id, [srv.master.account_id, other.id, c1.id]],
    ]);
    expect(ids((await srv.request('GET', `/v2/accounts/${r.id}/children`, { token })).body)).toEqual([c2.id]);
    await srv.request('PUT', `/v2/accounts/${g1.id}/simulations`, { token, data: { kind: 'call', answer: false } });
    const [req] = await sink.waitFor(1, { filter: (q) => q.path === '/moved' });
    expect(JSON.parse(req.body)).toMatchObject({ account_id: g1.id, reseller_id: srv.master.account_id });
    // the old reseller lost them: its token no longer reaches them
    expect((await srv.request('GET', `/v2/accounts/${g1.id}`, { token: await srv.apiLogin(r.apiKey) })).status).toBe(403);
    expect((await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: { to: r.id } })).status).toBe(200);
  });

  it('move refuses: a cycle, the master account, no `to`, an unknown parent; who may is an admin of both ends', async () => {
    const cycle = await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: { to: g1.id } });
    expect(cycle.status).toBe(403);
    expect(cycle.body.data.cause).toMatch(/under itself/);
    expect((await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: { to: c1.id } })).status).toBe(403);
    expect((await srv.request('POST', `/v2/accounts/${srv.master.account_id}/move`, { token, data: { to: r.id } })).status).toBe(403);
    const none = await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: {} });
    expect(none.status).toBe(400);
    expect(none.body.data.to.required).toBeTruthy();
    expect((await srv.request('POST', `/v2/accounts/${c1.id}/move`, { token, data: { to: 'a'.repeat(32) } })).status).toBe(404);
    // by default (Kazoo's) only a super-duper admin moves accounts
    const rToken = await srv.apiLogin(r.apiKey);
    const refused = await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: rToken, data: { to: c2.id } });
    expect(refused.status).toBe(403);
    expect(refused.body.data.cause).toMatch(/needs a super-duper admin \(crossbar.accounts allow_move\)/);
    // with allow_move tree, the reseller's admin may move within its subtree, not out of it, nor probe for ids
    await srv.request('POST', '/v2/system_configs/crossbar.accounts', { token, data: { default: { allow_move: 'tree' } } });
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: rToken, data: { to: c2.id } })).status).toBe(200);
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: rToken, data: { to: other.id } })).status).toBe(403);
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: rToken, data: { to: 'a'.repeat(32) } })).status).toBe(403);
    await srv.request('PUT', `/v2/accounts/${r.id}/users`, { token, data: { username: 'clerk', password: 'pw-clerk', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' } });
    const clerk = await srv.userLogin('Reseller R', 'clerk', 'pw-clerk');
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: clerk, data: { to: c1.id } })).status).toBe(403);
    await srv.request('POST', '/v2/system_configs/crossbar.accounts', { token, data: { default: { allow_move: 'superduper_admin' } } });
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token: rToken, data: { to: c1.id } })).status).toBe(403);
    expect((await srv.request('POST', `/v2/accounts/${g1.id}/move`, { token, data: { to: c1.id } })).status).toBe(200);
    await srv.request('DELETE', '/v2/system_configs/crossbar.accounts', { token });
  });

  it('tel accounts move and tree work on the file while the server runs on it', async () => {
    const moved = await runTel(['accounts', 'move', c2.id, '--to', other.id, '--db', srv.dbFile]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/Moved Customer Two/);
    expect(ids((await srv.request('GET', `/v2/accounts/${other.id}/children`, { token })).body)).toContain(c2.id);
    // an account whose name sorts before its parent's is drawn under it all the same
    const below = await createSubAccount(srv, c2.id, 'Aardvark');
    const tree = await runTel(['accounts', 'tree', other.id, '--db', srv.dbFile]);
    expect(tree.code).toBe(0);
    expect(tree.stdout).toBe(`Other (${other.id})\n└─ Customer Two (${c2.id})\n   └─ Aardvark (${below.id})\n`);
    const json = JSON.parse((await runTel(['accounts', 'tree', '--db', srv.dbFile, '--json'])).stdout);
    expect(json).toMatchObject({ id: srv.master.account_id, children: expect.arrayContaining([expect.objectContaining({ id: other.id })]) });
    const cycle = await runTel(['accounts', 'move', r.id, '--to', g1.id, '--db', srv.dbFile]);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toMatch(/under itself/);
  });
});
