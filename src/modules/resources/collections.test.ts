import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('resource collections: per-item results keyed by id', () => {
  let srv: TestServer;
  let token: string;
  let base: string;
  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Bulk Co');
    token = await srv.apiLogin(sub.apiKey);
    base = `/v2/accounts/${sub.id}/resources`;
  });
  afterAll(async () => srv.close());

  it('PUT creates every valid item; an invalid one is reported under its id and blocks nothing', async () => {
    const r = await srv.request('PUT', `${base}/collection`, {
      token,
      data: [
        { id: 'carrier-a', name: 'A', gateways: [{ server: 'a.example.net' }] },
        { id: 'carrier-b', name: 'B', gateways: [{ port: 5060 }] },
        { name: 'No id given', gateways: [] },
      ],
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data.errors)).toEqual(['carrier-b']);
    expect(r.body.data.errors['carrier-b']['gateways.0.server'].required).toBeTruthy();
    const created = Object.keys(r.body.data.successes);
    expect(created).toHaveLength(2);
    expect(r.body.data.successes['carrier-a']).toMatchObject({ id: 'carrier-a', name: 'A', weight_cost: 50, enabled: true });
    const generated = created.find((id) => id !== 'carrier-a')!;
    expect(generated).toMatch(/^[0-9a-f]{32}$/);
    const list = await srv.request('GET', base, { token });
    expect(list.body.data.map((d: { id: string }) => d.id).sort()).toEqual(['carrier-a', generated].sort());
  });

  it('PUT reports an id already taken, an id outside the pattern, and an item that is not an object', async () => {
    const r = await srv.request('PUT', `${base}/collection`, {
      token,
      data: [{ id: 'carrier-a', name: 'Again', gateways: [] }, { id: 'bad id!', name: 'X', gateways: [] }, 'nope', { id: 'carrier-c', name: 'C', gateways: [] }],
    });
    expect(r.body.data.errors['carrier-a'].id.unique).toBeTruthy();
    expect(r.body.data.errors['bad id!'].id.pattern).toBeTruthy();
    expect(r.body.data.errors['2']).toBeTruthy();
    expect(Object.keys(r.body.data.successes)).toEqual(['carrier-c']);
  });

  it('a PUT that creates nothing answers 200 with the errors, not 201', async () => {
    const before = (await srv.request('GET', base, { token })).body.data.length;
    const r = await srv.request('PUT', `${base}/collection`, { token, data: [{ id: 'only-bad', name: '', gateways: [] }] });
    expect(r.status).toBe(200);
    expect(r.body.data.successes).toEqual({});
    expect(r.body.data.errors['only-bad'].name.minLength).toBeTruthy();
    expect((await srv.request('GET', base, { token })).body.data.length).toBe(before);
  });

  it('POST merge-updates many by id; a missing one says so and an invalid change is refused alone', async () => {
    const r = await srv.request('POST', `${base}/collection`, {
      token,
      data: [
        { id: 'carrier-a', weight_cost: 10, gateways: [{ server: 'a2.example.net' }] },
        { id: 'carrier-c', weight_cost: 500 },
        { id: 'ghost', name: 'Nobody' },
        { name: 'no id' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.successes['carrier-a']).toMatchObject({ name: 'A', weight_cost: 10, gateways: [{ server: 'a2.example.net', port: 5060 }] });
    expect(r.body.data.errors['carrier-c'].weight_cost.maximum).toBeTruthy();
    expect(r.body.data.errors.ghost).toBe('resource does not exist');
    expect(r.body.data.errors['3'].id.required).toBeTruthy();
    const c = await srv.request('GET', `${base}/carrier-c`, { token });
    expect(c.body.data.weight_cost).toBe(50);
  });

  it('POST also takes an object keyed by id', async () => {
    const r = await srv.request('POST', `${base}/collection`, { token, data: { 'carrier-c': { enabled: false } } });
    expect(r.body.data.successes['carrier-c'].enabled).toBe(false);
    expect(r.body.data.errors).toEqual({});
  });

  it('a body that is not an array is a 400', async () => {
    const r = await srv.request('PUT', `${base}/collection`, { token, data: { name: 'single' } });
    expect(r.status).toBe(400);
    expect(r.body.data.data.type).toBeTruthy();
  });

  it('global collections need a super-duper admin token', async () => {
    expect((await srv.request('PUT', '/v2/resources/collection', { token, data: [] })).status).toBe(403);
    const r = await srv.request('PUT', '/v2/resources/collection', { token: srv.adminToken, data: [{ id: 'global-1', name: 'G', gateways: [] }] });
    expect(r.body.data.successes['global-1'].type).toBe('global');
  });
});
