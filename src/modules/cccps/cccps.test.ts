import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('cccps: calling-card callback entries', () => {
  let srv: TestServer;
  let a: { id: string; apiKey: string };
  let b: { id: string; apiKey: string };
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    srv = await startTestServer();
    a = await createSubAccount(srv, srv.master.account_id, 'Cards A');
    b = await createSubAccount(srv, srv.master.account_id, 'Cards B');
    tokenA = await srv.apiLogin(a.apiKey);
    tokenB = await srv.apiLogin(b.apiKey);
  });
  afterAll(() => srv?.close());

  it('creates, lists, reads, changes and deletes an entry; a cid is stored normalised', async () => {
    const put = await srv.request('PUT', `/v2/accounts/${a.id}/cccps`, { token: tokenA, data: { cid: '4155550100', active: true, comment: 'desk' } });
    expect(put.status, put.text).toBe(201);
    expect(put.body.data).toMatchObject({ cid: '+14155550100', active: true, comment: 'desk' });
    const id = put.body.data.id;
    const list = await srv.request('GET', `/v2/accounts/${a.id}/cccps`, { token: tokenA });
    expect(list.body.data).toEqual([{ id, account_id: a.id, active: true, cid: '+14155550100', comment: 'desk' }]);
    expect((await srv.request('GET', `/v2/accounts/${a.id}/cccps/${id}`, { token: tokenA })).body.data.cid).toBe('+14155550100');
    const post = await srv.request('POST', `/v2/accounts/${a.id}/cccps/${id}`, { token: tokenA, data: { cid: '+14155550100', active: false } });
    expect(post.status, post.text).toBe(200);
    expect(post.body.data.active).toBe(false);
    const del = await srv.request('DELETE', `/v2/accounts/${a.id}/cccps/${id}`, { token: tokenA });
    expect(del.body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', `/v2/accounts/${a.id}/cccps/${id}`, { token: tokenA })).status).toBe(404);
  });

  it("refuses an active PIN or CID another account's active entry holds, and a number the platform cannot route", async () => {
    expect((await srv.request('PUT', `/v2/accounts/${a.id}/cccps`, { token: tokenA, data: { pin: '8472', active: true } })).status).toBe(201);
    const pin = await srv.request('PUT', `/v2/accounts/${b.id}/cccps`, { token: tokenB, data: { pin: '8472' } });
    expect(pin.status).toBe(400);
    expect(pin.body.data).toEqual({ cccp: { unique: { message: 'Pin already exists' } } });
    expect((await srv.request('PUT', `/v2/accounts/${b.id}/cccps`, { token: tokenB, data: { pin: '8473' } })).status).toBe(201);

    expect((await srv.request('PUT', `/v2/accounts/${a.id}/cccps`, { token: tokenA, data: { cid: '+14155550111', active: true } })).status).toBe(201);
    const cid = await srv.request('PUT', `/v2/accounts/${b.id}/cccps`, { token: tokenB, data: { cid: '4155550111' } });
    expect(cid.status).toBe(400);
    expect(cid.body.data.cccp.unique).toEqual({ message: 'CID already exists', cause: '+14155550111' });
    const short = await srv.request('PUT', `/v2/accounts/${b.id}/cccps`, { token: tokenB, data: { cid: '1000' } });
    expect(short.status).toBe(400);
    expect(short.body.data.cccp.unique).toEqual({ message: 'Number is non reconcilable', cause: '1000' });
    const bad = await srv.request('PUT', `/v2/accounts/${b.id}/cccps`, { token: tokenB, data: { user_id: 'short' } });
    expect(bad.body.data.user_id.minLength).toBeDefined();
  });

  it("accepts a callback request from the account's own token only", async () => {
    const own = await srv.request('PUT', `/v2/accounts/${a.id}/cccps/autodial`, { token: tokenA, data: { b_leg_number: '+14155550199' } });
    expect(own.status, own.text).toBe(201);
    const parent = await srv.request('PUT', `/v2/accounts/${a.id}/cccps/autodial`, { token: srv.adminToken, data: { b_leg_number: '+14155550199' } });
    expect(parent.status).toBe(400);
    expect(parent.body.data).toEqual({ account: { forbidden: { message: 'For direct use by account holder only' } } });
    expect((await srv.request('PUT', `/v2/accounts/${a.id}/cccps/${'e'.repeat(32)}`, { token: tokenA, data: {} })).status).toBe(404);
    expect((await srv.request('GET', `/v2/accounts/${a.id}/cccps`, { token: tokenB })).status).toBe(403);
    expect((await srv.request('GET', `/v2/accounts/${a.id}/cccps`, { token: null })).status).toBe(401);
  });
});
