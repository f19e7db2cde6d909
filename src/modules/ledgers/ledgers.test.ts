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

describe("credits and debits (PUT ledgers/credit|debit) as Kazoo's cb_ledgers writes them, and what GET ledgers then sums", () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let customer: { id: string; apiKey: string };
  let resellerToken: string;
  const ledgers = (account: string, path = '') => `/v2/accounts/${account}/ledgers${path}`;
  const entry = (amount: number, service = 'adjustments', id = `src-${amount}-${Math.random()}`) => ({
    amount,
    source: { service, id },
    usage: { type: 'credit', quantity: 0, unit: 'USD' },
    description: 'Credit added by administrator',
    metadata: { ui_request: true },
  });

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Ledger Reseller');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken });
    customer = await createSubAccount(srv, reseller.id, 'Ledger Customer');
    resellerToken = await srv.apiLogin(reseller.apiKey);
  });
  afterAll(() => srv?.close());

  it("the account's reseller credits and debits it; the entries are Kazoo's ledgers, a debit negative", async () => {
    const credit = await srv.request('PUT', ledgers(customer.id, '/credit'), { token: resellerToken, data: entry(25.5) });
    expect(credit.status).toBe(201);
    expect(credit.body.data).toMatchObject({
      id: expect.stringMatching(/^\d{6}-[0-9a-f]{32}$/),
      amount: 25.5,
      account: { id: customer.id, name: 'Ledger Customer' },
      source: { service: 'adjustments' },
      usage: { type: 'credit', quantity: 0, unit: 'USD' },
      executor: { trigger: 'crossbar', module: 'cb_ledgers' },
      period: { start: expect.any(Number) },
      audit: { authentication: { account_id: reseller.id, account_name: 'Ledger Reseller' } },
    });
    const debit = await srv.request('PUT', ledgers(customer.id, '/debit'), { token: resellerToken, data: { ...entry(5.25), usage: { type: 'debit', quantity: 2, unit: 'USD' } } });
    expect(debit.body.data.amount).toBe(-5.25);
    await srv.request('PUT', ledgers(customer.id, '/credit'), { token: srv.adminToken, data: entry(100, 'payments') });
    const customerToken = await srv.apiLogin(customer.apiKey);
    expect((await srv.request('GET', ledgers(customer.id, '/total'), { token: customerToken })).body.data).toEqual({ amount: 120.25 });
    const summary = await srv.request('GET', ledgers(customer.id), { token: customerToken });
    expect(summary.body.data).toEqual({
      adjustments: { amount: 20.25, usage: { type: 'credit', quantity: 2, unit: 'USD' } },
      payments: { amount: 100, usage: { type: 'credit', quantity: 0, unit: 'USD' } },
    });
    const listed = await srv.request('GET', ledgers(customer.id, '/adjustments'), { token: customerToken });
    expect(listed.body.data.map((l: any) => l.amount)).toEqual([-5.25, 25.5]);
    // Kazoo's documented window (11111111 to 22222222) is wider than crossbar_view:time_range/5 takes (31 days and an hour)
    const wide = await srv.request('GET', ledgers(customer.id, '/adjustments?created_from=11111111&created_to=22222222'), { token: customerToken });
    expect(wide.status).toBe(400);
    expect(wide.body.data.created_from.date_range).toEqual({ message: 'created_to 22222222 is more than 2682000 seconds from created_from 11111111', cause: 22222222 });
    const one = await srv.request('GET', ledgers(customer.id, `/adjustments/${credit.body.data.id}`), { token: customerToken });
    expect(one.body.data).toMatchObject({ id: credit.body.data.id, amount: 25.5 });
    expect((await srv.request('GET', ledgers(customer.id, `/payments/${credit.body.data.id}`), { token: customerToken })).status).toBe(404);
    const month = new Date().toISOString().slice(0, 7).replace('-', '');
    const byMonth = await srv.request('GET', ledgers(customer.id, `/summary/${month}`), { token: customerToken });
    expect(byMonth.body.data.breakdown).toEqual([expect.objectContaining({ account: { id: customer.id, name: 'Ledger Customer' }, total: 120.25 })]);
    expect((await srv.request('GET', ledgers(customer.id, '/available'), { token: customerToken })).body.data.map((l: any) => l.name)).toEqual(['per-minute-voip', 'services', 'payments', 'rollovers']);
  });

  it('who may: not the account itself, nor another account; the master account only by a super-duper admin', async () => {
    const customerToken = await srv.apiLogin(customer.apiKey);
    const own = await srv.request('PUT', ledgers(customer.id, '/credit'), { token: customerToken, data: entry(10) });
    expect(own.status).toBe(403);
    expect((await srv.request('PUT', ledgers(reseller.id, '/credit'), { token: resellerToken, data: entry(10) })).status).toBe(403);
    expect((await srv.request('PUT', ledgers(srv.master.account_id, '/credit'), { token: srv.adminToken, data: entry(10) })).status).toBe(201);
    expect((await srv.request('GET', ledgers(customer.id, '/credit'), { token: resellerToken })).status).toBe(405);
  });

  it("Kazoo's checks: the schema (source and usage required, amount at least 1); the same entry twice is a conflict", async () => {
    const bad = await srv.request('PUT', ledgers(customer.id, '/credit'), { token: resellerToken, data: { amount: 0.5 } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data).sort()).toEqual(['amount', 'source', 'usage']);
    const same = entry(3, 'adjustments', 'fixed-source');
    expect((await srv.request('PUT', ledgers(customer.id, '/credit'), { token: resellerToken, data: { ...same, period: { start: 63_900_000_000 } } })).status).toBe(201);
    expect((await srv.request('PUT', ledgers(customer.id, '/credit'), { token: resellerToken, data: { ...same, period: { start: 63_900_000_000 } } })).status).toBe(409);
  });

  it("impact_reseller writes the reseller's own copy, answering both accounts' ledgers and balances", async () => {
    const r = await srv.request('PUT', ledgers(customer.id, '/debit'), { token: resellerToken, data: entry(7), envelope: { impact_reseller: true } });
    expect(r.status).toBe(201);
    expect(r.body.data[customer.id]).toMatchObject({ ledger: { amount: -7 }, is_reseller: false });
    expect(r.body.data[reseller.id]).toMatchObject({ ledger: { amount: -7, account: { id: customer.id } }, available_dollars: -7, is_reseller: true });
    expect((await srv.request('GET', ledgers(reseller.id, '/total'), { token: resellerToken })).body.data.amount).toBe(-7);
    // the reseller's month: its copy summed, and broken down under the account the entry is about
    const month = new Date().toISOString().slice(0, 7).replace('-', '');
    const byMonth = await srv.request('GET', ledgers(reseller.id, `/summary/${month}`), { token: resellerToken });
    const adjustments = { amount: -7, usage: { type: 'credit', quantity: 0, unit: 'USD' } };
    expect(byMonth.body.data).toEqual({ summary: { adjustments }, breakdown: [{ account: { id: customer.id, name: 'Ledger Customer' }, ledgers: { adjustments }, total: -7 }] });
  });
});
