import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('ledgers (/v2/accounts/{id}/ledgers[/total])', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  it('an account without ledgers totals 0; token and account checks as everywhere', async () => {
    const shop = await createSubAccount(srv, srv.master.account_id, 'Ledger Shop');
    const other = await createSubAccount(srv, srv.master.account_id, 'Ledger Other');
    const path = `/v2/accounts/${shop.id}/ledgers/total`;
    const r = await srv.request('GET', path, { token: await srv.apiLogin(shop.apiKey) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', data: { amount: 0 } });
    expect((await srv.request('GET', path)).status).toBe(401);
    expect((await srv.request('GET', path, { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
    expect((await srv.request('GET', `/v2/accounts/${'e'.repeat(32)}/ledgers/total`, { token: srv.adminToken })).status).toBe(404);
    expect((await srv.request('PUT', path, { token: srv.adminToken, data: {} })).status).toBe(405);
    const all = await srv.request('GET', `/v2/accounts/${shop.id}/ledgers`, { token: await srv.apiLogin(shop.apiKey) });
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({});
    expect((await srv.request('GET', `/v2/accounts/${shop.id}/ledgers`, { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
  });
});
