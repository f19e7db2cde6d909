import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('search: accounts below the caller, callflows by number', () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let token: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Reseller');
    token = await srv.apiLogin(reseller.apiKey);
    for (const name of ['Acme Corp', 'Acme-East', 'Beta Ltd']) ids[name] = (await createSubAccount(srv, reseller.id, name, token)).id;
    ids['Acme Elsewhere'] = (await createSubAccount(srv, srv.master.account_id, 'Acme Elsewhere')).id;
  });
  afterAll(() => srv?.close());

  it('finds the descendants whose name starts with v (compared lower case, letters and digits only), paged', async () => {
    const r = await srv.request('GET', `/v2/accounts/${reseller.id}/search?t=account&q=name&v=ACME`, { token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((h: { name: string }) => h.name)).toEqual(['Acme Corp', 'Acme-East']);
    expect(r.body.data[0]).toMatchObject({ id: ids['Acme Corp'], descendants_count: 0, realm: expect.any(String) });
    const p1 = await srv.request('GET', `/v2/search?t=account&q=name&v=acme&page_size=1`, { token });
    expect(p1.body.data.map((h: { name: string }) => h.name)).toEqual(['Acme Corp']);
    const p2 = await srv.request('GET', `/v2/search?t=account&q=name&v=acme&page_size=1&start_key=${p1.body.next_start_key}`, { token });
    expect(p2.body.data.map((h: { name: string }) => h.name)).toEqual(['Acme-East']);
    expect(p2.body.next_start_key).toBeUndefined();
    // the super-duper admin's account is above every other; the order is that of the compared names (acmeeast before acmeelsewhere)
    const all = await srv.request('GET', `/v2/search?t=account&q=name&v=acme`, { token: srv.adminToken });
    expect(all.body.data.map((h: { name: string }) => h.name)).toEqual(['Acme Corp', 'Acme-East', 'Acme Elsewhere']);
  });

  it('searches by realm and id, and several at once', async () => {
    const acme = (await srv.request('GET', `/v2/accounts/${ids['Acme Corp']}`, { token })).body.data;
    const byRealm = await srv.request('GET', `/v2/accounts/${reseller.id}/search?t=account&q=realm&v=${acme.realm.slice(0, 6)}`, { token });
    expect(byRealm.body.data.map((h: { id: string }) => h.id)).toContain(ids['Acme Corp']);
    const multi = await srv.request('GET', `/v2/accounts/${reseller.id}/search/multi?t=account&by_name=beta&by_id=${ids['Acme-East']}`, { token });
    expect(multi.status, multi.text).toBe(200);
    expect(multi.body.data.name.map((h: { name: string }) => h.name)).toEqual(['Beta Ltd']);
    expect(multi.body.data.id.map((h: { name: string }) => h.name)).toEqual(['Acme-East']);
    // a query name given twice is searched once, for its last value
    const twice = await srv.request('GET', `/v2/accounts/${reseller.id}/search/multi?t=account&by_name=acme&by_name=beta`, { token });
    expect(twice.body.data).toEqual({ name: [expect.objectContaining({ name: 'Beta Ltd' })] });
  });

  it("finds an account's callflows by the start of a number", async () => {
    const cf = await srv.request('PUT', `/v2/accounts/${reseller.id}/callflows`, { token, data: { name: 'Main', numbers: ['+14155550100', '2000'], flow: { module: 'park' } } });
    expect(cf.status, cf.text).toBe(201);
    const r = await srv.request('GET', `/v2/accounts/${reseller.id}/search?t=callflow&q=number&v=%2B1415`, { token });
    expect(r.body.data).toEqual([{ id: cf.body.data.id, name: 'Main', numbers: ['+14155550100', '2000'] }]);
  });

  it("answers Kazoo's 400s on t, q and v", async () => {
    const base = `/v2/accounts/${reseller.id}/search`;
    expect((await srv.request('GET', `${base}?q=name&v=a`, { token })).body.data.t.required.target).toEqual(['account', 'user', 'callflow', 'device']);
    expect((await srv.request('GET', `${base}?t=account&v=a`, { token })).body.data.q.required.target).toEqual(['name', 'realm', 'id']);
    expect((await srv.request('GET', `${base}?t=account&q=color&v=a`, { token })).body.data.q.enum.cause).toBe('color');
    expect((await srv.request('GET', `${base}?t=account&q=name`, { token })).body.data.v.required.message).toBe('search needs a value to search for');
    expect((await srv.request('GET', `${base}/multi?t=account`, { token })).body.data.multi.enum.target).toEqual(['name', 'realm', 'id']);
  });

  it("sees only the caller's descendants, and the caller's accounts only", async () => {
    const acme = await createSubAccount(srv, reseller.id, 'Acme Sub', token);
    const mine = await srv.request('GET', `/v2/search?t=account&q=name&v=`, { token: await srv.apiLogin(acme.apiKey) });
    expect(mine.body.data).toEqual([]);
    const theirs = await srv.request('GET', `/v2/accounts/${ids['Acme Elsewhere']}/search?t=account&q=name&v=a`, { token });
    expect(theirs.status).toBe(403);
    expect((await srv.request('GET', `/v2/search?t=account&q=name&v=a`, { token: null })).status).toBe(401);
  });
});
