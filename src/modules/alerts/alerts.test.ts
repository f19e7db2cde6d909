import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { createAccount } from '../accounts/service.js';
import { nowGregorian } from '../../util/time.js';
import { alertsPage, audienceKeys } from './service.js';

describe('alerts (/v2/accounts/{id}/alerts)', () => {
  let srv: TestServer;
  let reseller: string;
  let shop: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  let boss: string;
  let clerk: string;
  let clerkId: string;
  const alerts = (account: string, id = '') => `/v2/accounts/${account}/alerts${id ? `/${id}` : ''}`;
  const create = (to: unknown[], more: Record<string, unknown> = {}) =>
    srv.request('PUT', alerts(srv.master.account_id), {
      token: srv.adminToken,
      data: { title: 'Maintenance', message: 'The lab restarts at noon.', from: [{ type: 'account', value: srv.master.account_id }], to, ...more },
    });
  const titles = async (account: string, token: string) => ((await srv.request('GET', alerts(account), { token })).body.data as any[]).map((a) => a.title);

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = createAccount(srv.core, { name: 'Reseller' }, { parentId: srv.master.account_id, reseller: true }).id;
    const key = await srv.request('GET', `/v2/accounts/${reseller}/api_key`, { token: srv.adminToken });
    shop = await createSubAccount(srv, reseller, 'Shop', await srv.apiLogin(key.body.data.api_key));
    other = await createSubAccount(srv, srv.master.account_id, 'Elsewhere');
    for (const [username, priv_level] of [['boss', 'admin'], ['clerk', 'user']]) {
      const r = await srv.request('PUT', `/v2/accounts/${shop.id}/users`, { token: srv.adminToken, data: { username, password: `pw-${username}`, priv_level, first_name: 'F', last_name: 'L' } });
      if (username === 'clerk') clerkId = r.body.data.id;
    }
    boss = await srv.userLogin('Shop', 'boss', 'pw-boss');
    clerk = await srv.userLogin('Shop', 'clerk', 'pw-clerk');
  });
  afterAll(() => srv?.close());

  it('an account nobody alerted lists none (200, page_size 0)', async () => {
    const r = await srv.request('GET', alerts(shop.id), { token: clerk });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', data: [], page_size: 0 });
    expect((await srv.request('GET', alerts(shop.id))).status).toBe(401);
  });

  it('only a super-duper admin creates one (403); title, message, from and to are required (400)', async () => {
    const sent = { title: 'x', message: 'y', from: [{ type: 'account', value: shop.id }], to: [{ type: 'all', value: 'all' }] };
    expect((await srv.request('PUT', alerts(shop.id), { token: boss, data: sent })).status).toBe(403);
    const bad = await srv.request('PUT', alerts(srv.master.account_id), { token: srv.adminToken, data: { to: [{ type: 'somebody', value: 'all' }] } });
    expect(bad.status).toBe(400);
    for (const field of ['title', 'message', 'from']) expect(bad.body.data[field]?.required, field).toBeDefined();
    expect(JSON.stringify(bad.body.data)).toContain('to.0.type');
  });

  it('an alert to everyone: 201, then listed to every account with clearable and created, without its audience', async () => {
    const r = await create([{ type: 'all', value: 'all' }], { category: 'maintenance', level: 'info' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), title: 'Maintenance', created: expect.any(Number) });
    for (const [account, token] of [[shop.id, clerk], [other.id, await srv.apiLogin(other.apiKey)]]) {
      const list = await srv.request('GET', alerts(account), { token });
      expect(list.body.page_size).toBe(1);
      expect(list.body.data[0]).toEqual({
        id: r.body.data.id,
        title: 'Maintenance',
        message: 'The lab restarts at noon.',
        from: [{ type: 'account', value: srv.master.account_id }],
        category: 'maintenance',
        level: 'info',
        created: r.body.data.created,
        clearable: true,
      });
    }
    await srv.request('DELETE', alerts(srv.master.account_id, r.body.data.id), { token: srv.adminToken });
  });

  it('reaches only its audience: an account’s admins, one user, resellers, the accounts below one', async () => {
    await create([{ type: shop.id, value: 'admins' }], { title: 'For Shop admins' });
    await create([{ type: shop.id, value: clerkId }], { title: 'For the clerk' });
    await create([{ type: 'resellers', value: 'all' }], { title: 'For resellers' });
    await create([{ type: 'descendants', value: [reseller, 'users'] }], { title: 'Below the reseller' });
    expect(await titles(shop.id, boss)).toEqual(['Below the reseller', 'For Shop admins']);
    expect(await titles(shop.id, clerk)).toEqual(['Below the reseller', 'For the clerk']);
    expect(await titles(reseller, srv.adminToken)).toEqual(['For resellers']);
    expect(await titles(other.id, await srv.apiLogin(other.apiKey))).toEqual([]);
  });

  it('an expired alert is no longer listed', async () => {
    await create([{ type: other.id, value: 'all' }], { title: 'Past', expiration_date: nowGregorian() - 60 });
    await create([{ type: other.id, value: 'all' }], { title: 'Future', expiration_date: nowGregorian() + 3600 });
    expect(await titles(other.id, srv.adminToken)).toEqual(['Future']);
  });

  it('listed a page at a time, newest first (start_key, next_start_key; paginate=false for all), an alert to two of the caller\'s audiences once', async () => {
    const paged = await createSubAccount(srv, srv.master.account_id, 'Paged');
    const token = await srv.apiLogin(paged.apiKey);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const to = i === 2 ? [{ type: paged.id, value: 'all' }, { type: 'descendants', value: [srv.master.account_id, 'admins'] }] : [{ type: paged.id, value: 'admins' }];
      made.push((await create(to, { title: `Paged ${i}` })).body.data.id);
      await new Promise((r) => setTimeout(r, 2));
    }
    const seen: string[] = [];
    let key: string | undefined;
    do {
      const page = await srv.request('GET', `${alerts(paged.id)}?page_size=2${key ? `&start_key=${encodeURIComponent(key)}` : ''}`, { token });
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      expect(page.body.page_size).toBe(page.body.data.length);
      seen.push(...page.body.data.map((a: { id: string }) => a.id));
      key = page.body.next_start_key;
    } while (key !== undefined);
    expect(seen).toEqual([...made].reverse());
    const all = await srv.request('GET', `${alerts(paged.id)}?paginate=false`, { token });
    expect(all.body.data.map((a: { id: string }) => a.id)).toEqual(seen);
    expect((await srv.request('GET', `${alerts(paged.id)}?start_key=nonsense`, { token })).status).toBe(400);
    // more audiences than one statement merges (an account hundreds of levels deep): the same pages
    const audiences = [...Array.from({ length: 450 }, (_, i) => `descendants|${String(i).padStart(32, '0')},admins`), ...audienceKeys(srv.core, paged.id, { accountId: paged.id, isSuperduper: false })];
    const walked: string[] = [];
    for (let page = alertsPage(srv.core, audiences, { pageSize: 2 }); ; page = alertsPage(srv.core, audiences, { pageSize: 2, startKey: page.nextStartKey })) {
      walked.push(...page.items.map((a) => a.id));
      if (!page.nextStartKey) break;
    }
    expect(walked).toEqual(seen);
  });

  it('GET one answers it to its audience (404 to others); a super-duper admin removes it for everyone', async () => {
    const made = await create([{ type: shop.id, value: 'all' }], { title: 'Read me' });
    const id = made.body.data.id;
    const one = await srv.request('GET', alerts(shop.id, id), { token: clerk });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id, title: 'Read me', to: [{ type: shop.id, value: 'all' }] });
    const elsewhere = await srv.request('GET', alerts(other.id, id), { token: await srv.apiLogin(other.apiKey) });
    expect(elsewhere.status).toBe(404);
    expect((await srv.request('DELETE', alerts(shop.id, id), { token: boss })).status).toBe(403);
    const del = await srv.request('DELETE', alerts(shop.id, id), { token: srv.adminToken });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id, _read_only: { deleted: true } });
    expect((await srv.request('GET', alerts(shop.id, id), { token: clerk })).status).toBe(404);
    expect(await titles(shop.id, clerk)).not.toContain('Read me');
  });
});
