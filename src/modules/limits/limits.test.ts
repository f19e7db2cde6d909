import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { createAccount } from '../accounts/service.js';
import { setLimits } from './service.js';

describe('limits and the charge handshake', () => {
  let srv: TestServer;
  let customer: { id: string; apiKey: string };
  const limitsOf = (id: string, v = 'v2') => `/${v}/accounts/${id}/limits`;

  beforeAll(async () => {
    srv = await startTestServer();
    customer = await createSubAccount(srv, srv.master.account_id, 'Direct Customer');
    const rates = { default: { limits: { inbound_trunks: { rate: 6.99 }, twoway_trunks: { rate: 19.99, single_discount_rate: 5, cumulative_discount_rate: 1.5 } } } };
    const r = await srv.request('POST', '/v2/system_configs/services', { token: srv.adminToken, data: rates });
    expect(r.status).toBe(200);
  });
  afterAll(async () => srv.close());

  it('GET on an account that never stored limits answers the defaults with id "limits"', async () => {
    const fresh = await createSubAccount(srv, srv.master.account_id, 'Fresh');
    const r = await srv.request('GET', limitsOf(fresh.id), { token: srv.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
    expect(r.body.data).toEqual({ id: 'limits', allow_prepay: true, authz_resource_types: [] });
  });

  it('the 402 handshake end to end: quote, nothing stored, then accepted and applied', async () => {
    const token = srv.adminToken;
    const change = { twoway_trunks: 0, inbound_trunks: 11, id: 'limits', allow_prepay: true, outbound_trunks: 5 };
    const quote = await srv.request('POST', limitsOf(customer.id), { token, data: change });
    expect(quote.status).toBe(402);
    expect(quote.body).toMatchObject({ error: '402', message: 'accept charges', status: 'error' });
    expect(quote.body.data).toEqual({
      limits: {
        inbound_trunks: {
          category: 'limits',
          item: 'inbound_trunks',
          quantity: 11,
          rate: 6.99,
          single_discount: 0,
          single_discount_rate: 0,
          cumulative_discount: 0,
          cumulative_discount_rate: 0,
        },
      },
    });
    expect((await srv.request('GET', limitsOf(customer.id), { token })).body.data).toEqual({ id: 'limits', allow_prepay: true, authz_resource_types: [] });

    const accepted = await srv.request('POST', limitsOf(customer.id), { token, data: { ...change, accept_charges: true } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toEqual({ ...change, id: 'limits', authz_resource_types: [] });
    const got = await srv.request('GET', limitsOf(customer.id), { token });
    // a stored record is read with the postpay fields cb_limits leak_pvt_fields/1 adds (a POST's answer has none)
    expect(got.body.data).toEqual({ ...change, id: 'limits', authz_resource_types: [], allow_postpay: false, max_postpay_amount: 0 });
    expect(got.body.data.accept_charges).toBeUndefined();
    expect(got.body.revision).toBe(accepted.body.revision);
  });

  it('accept_charges at the top level of the envelope is honoured too; discounts are quoted as numbers', async () => {
    const token = srv.adminToken;
    const kept = { inbound_trunks: 11, outbound_trunks: 5 };
    const quote = await srv.request('POST', limitsOf(customer.id), { token, data: { ...kept, twoway_trunks: 3 } });
    expect(quote.status).toBe(402);
    expect(quote.body.data.limits.twoway_trunks).toEqual({
      category: 'limits',
      item: 'twoway_trunks',
      quantity: 3,
      rate: 19.99,
      single_discount: 1,
      single_discount_rate: 5,
      cumulative_discount: 3,
      cumulative_discount_rate: 1.5,
    });
    const ok = await srv.request('POST', limitsOf(customer.id), { token, envelope: { accept_charges: true }, data: { ...kept, twoway_trunks: 3 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ twoway_trunks: 3, inbound_trunks: 11, outbound_trunks: 5 });
  });

  it('raising quantities already above zero quotes each new total, every unit under the cumulative discount', async () => {
    const token = srv.adminToken;
    const before = (await srv.request('GET', limitsOf(customer.id), { token })).body.data;
    expect(before).toMatchObject({ inbound_trunks: 11, twoway_trunks: 3 });
    const quote = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 12, outbound_trunks: 5, twoway_trunks: 7 } });
    expect(quote.status).toBe(402);
    const line = { category: 'limits', single_discount: 0, single_discount_rate: 0, cumulative_discount: 0, cumulative_discount_rate: 0 };
    expect(quote.body.data.limits).toEqual({
      inbound_trunks: { ...line, item: 'inbound_trunks', quantity: 12, rate: 6.99 },
      twoway_trunks: { ...line, item: 'twoway_trunks', quantity: 7, rate: 19.99, single_discount: 1, single_discount_rate: 5, cumulative_discount: 7, cumulative_discount_rate: 1.5 },
    });
    expect((await srv.request('GET', limitsOf(customer.id), { token })).body.data).toEqual(before);
  });

  it('a POST is the whole record, as Kazoo\'s: what it leaves out goes, and its defaults come back', async () => {
    const token = srv.adminToken;
    const r = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 11, twoway_trunks: 3, allow_prepay: false } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: 'limits', inbound_trunks: 11, twoway_trunks: 3, allow_prepay: false, authz_resource_types: [] });
    const back = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 11, twoway_trunks: 3 } });
    expect(back.body.data).toEqual({ id: 'limits', inbound_trunks: 11, twoway_trunks: 3, allow_prepay: true, authz_resource_types: [] });
  });

  it('lowering or keeping quantities, or raising one without a rate, never charges', async () => {
    const token = srv.adminToken;
    const lower = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 4, twoway_trunks: 3 } });
    expect(lower.status).toBe(200);
    const free = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 4, twoway_trunks: 3, outbound_trunks: 50, calls: 100 } });
    expect(free.status).toBe(200);
    expect((await srv.request('GET', limitsOf(customer.id), { token })).body.data).toMatchObject({
      inbound_trunks: 4,
      outbound_trunks: 50,
      calls: 100,
    });
    const raise = await srv.request('POST', limitsOf(customer.id), { token, data: { inbound_trunks: 5, twoway_trunks: 3, outbound_trunks: 50, calls: 100 } });
    expect(raise.status).toBe(402);
    expect(Object.keys(raise.body.data.limits)).toEqual(['inbound_trunks']);
  });

  it('rates written as numbers, as numeric strings or in objects are quoted; a rate that is not a positive finite number charges nothing', async () => {
    const token = srv.adminToken;
    const services = async (limits: unknown) =>
      expect((await srv.request('POST', '/v2/system_configs/services', { token, data: { default: { limits } } })).status).toBe(200);
    const fresh = await createSubAccount(srv, srv.master.account_id, 'Rates Written Loosely');
    const everything = { inbound_trunks: 2, outbound_trunks: 2, twoway_trunks: 2, burst_trunks: 2, calls: 2, resource_consuming_calls: 2 };
    const quoted = async () => {
      const r = await srv.request('POST', limitsOf(fresh.id), { token, data: everything });
      return r.status === 402 ? r.body.data.limits : { status: r.status };
    };
    try {
      await services({
        inbound_trunks: 3,
        outbound_trunks: '2.5',
        twoway_trunks: { rate: '4', single_discount_rate: '1', cumulative_discount_rate: 'many' },
        burst_trunks: 'Infinity',
        calls: -2,
        resource_consuming_calls: { rate: true },
      });
      const line = { category: 'limits', quantity: 2, single_discount: 0, single_discount_rate: 0, cumulative_discount: 0, cumulative_discount_rate: 0 };
      expect(await quoted()).toEqual({
        inbound_trunks: { ...line, item: 'inbound_trunks', rate: 3 },
        outbound_trunks: { ...line, item: 'outbound_trunks', rate: 2.5 },
        twoway_trunks: { ...line, item: 'twoway_trunks', rate: 4, single_discount: 1, single_discount_rate: 1 },
      });
      // an item set to null, or no table of items at all: nothing to charge, the change is applied
      await services({ inbound_trunks: null, outbound_trunks: [5] });
      expect(await quoted()).toEqual({ status: 200 });
      await services(null);
      expect(await quoted()).toEqual({ status: 200 });
    } finally {
      await services({ inbound_trunks: { rate: 6.99 }, twoway_trunks: { rate: 19.99, single_discount_rate: 5, cumulative_discount_rate: 1.5 } });
    }
  });

  it('POST /v1 applies a charging change without the handshake', async () => {
    const r = await srv.request('POST', limitsOf(customer.id, 'v1'), { token: srv.adminToken, data: { inbound_trunks: 20 } });
    expect(r.status).toBe(200);
    expect(r.body.data.inbound_trunks).toBe(20);
    expect((await srv.request('GET', limitsOf(customer.id), { token: srv.adminToken })).body.data.inbound_trunks).toBe(20);
  });

  it('validation: non-negative integers and booleans, "7" coerced, Kazoo-shaped 400 storing nothing', async () => {
    const token = srv.adminToken;
    const before = (await srv.request('GET', limitsOf(customer.id), { token })).body.data;
    const bad = await srv.request('POST', limitsOf(customer.id), { token, data: { calls: -1, allow_prepay: 'maybe', burst_trunks: 'lots' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('validation error');
    expect(bad.body.data.calls.minimum).toMatchObject({ target: 0 });
    expect(bad.body.data.allow_prepay.type).toBeTruthy();
    expect(bad.body.data.burst_trunks.type).toBeTruthy();
    expect((await srv.request('GET', limitsOf(customer.id), { token })).body.data).toEqual(before);
    const coerced = await srv.request('POST', limitsOf(customer.id), {
      token,
      data: { resource_consuming_calls: '7', burst_trunks: 1.5, allow_prepay: 'false', ui_metadata: { ui: 'monster-ui' } },
    });
    expect(coerced.status).toBe(200);
    // Kazoo rounds a number where an integer is wanted
    expect(coerced.body.data).toMatchObject({ resource_consuming_calls: 7, burst_trunks: 2, allow_prepay: false, ui_metadata: { ui: 'monster-ui' } });
  });

  it('only the reseller above, a direct customer of the master account or a super-duper admin may POST', async () => {
    const reseller = createAccount(srv.core, { name: 'Reseller R' }, { parentId: srv.master.account_id, reseller: true });
    const resellerKey = (await srv.request('GET', `/v2/accounts/${reseller.id}/api_key`, { token: srv.adminToken })).body.data.api_key;
    const sub = await createSubAccount(srv, reseller.id, 'Customer of R');
    const resellerToken = await srv.apiLogin(resellerKey);
    const subToken = await srv.apiLogin(sub.apiKey);

    const denied = await srv.request('POST', limitsOf(sub.id), { token: subToken, data: { outbound_trunks: 2 } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('forbidden');
    expect(denied.body.data.cause).toBe('Please contact your phone provider to add limits.');
    expect((await srv.request('GET', limitsOf(sub.id), { token: subToken })).status).toBe(200);

    expect((await srv.request('POST', limitsOf(sub.id), { token: resellerToken, data: { outbound_trunks: 2 } })).status).toBe(200);
    // a plain user of the reseller, though the reseller's own account is above the customer
    await srv.request('PUT', `/v2/accounts/${reseller.id}/users`, {
      token: srv.adminToken,
      data: { username: 'clerk', password: 'clerk-pass-1', first_name: 'C', last_name: 'Lerk', priv_level: 'user' },
    });
    const clerk = await srv.userLogin('Reseller R', 'clerk', 'clerk-pass-1');
    const plain = await srv.request('POST', limitsOf(sub.id), { token: clerk, data: { outbound_trunks: 2 } });
    expect(plain.status).toBe(403);
    expect(plain.body.data.cause).toBe('changing limits needs an admin of the account');
    // a super-duper admin, though not the reseller above
    expect((await srv.request('POST', limitsOf(sub.id), { token: srv.adminToken, data: { outbound_trunks: 1 } })).status).toBe(200);
    const direct = await srv.apiLogin(customer.apiKey);
    expect((await srv.request('POST', limitsOf(customer.id), { token: direct, data: { outbound_trunks: 3 } })).status).toBe(200);
    expect((await srv.request('POST', limitsOf(reseller.id), { token: resellerToken, data: { calls: 9 } })).status).toBe(200);
  });

  it("an account that does not exist is refused, and gets no limits row, even from a super-duper admin", async () => {
    const ghost = 'f'.repeat(32);
    const r = await srv.request('POST', limitsOf(ghost, 'v1'), { token: srv.adminToken, data: { inbound_trunks: 1 } });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('bad_identifier');
    expect(srv.core.db.prepare('SELECT COUNT(*) AS n FROM limits WHERE account_id = ?').get(ghost)).toEqual({ n: 0 });
    expect(() => setLimits(srv.core, ghost, { inbound_trunks: 1 }, { acceptCharges: true })).toThrow(/bad.identifier/);
  });

  it("the offline CLI's change (merge) keeps the fields it does not name; the API's POST (replace) drops them", async () => {
    const a = await createSubAccount(srv, srv.master.account_id, 'Merged Into');
    setLimits(srv.core, a.id, { outbound_trunks: 4, calls: 9 }, { acceptCharges: true });
    expect(setLimits(srv.core, a.id, { calls: 10 }, { acceptCharges: true }).data).toMatchObject({ outbound_trunks: 4, calls: 10 });
    const replaced = setLimits(srv.core, a.id, { calls: 11 }, { acceptCharges: true, mode: 'replace' }).data;
    expect(replaced).toMatchObject({ calls: 11 });
    expect(replaced).not.toHaveProperty('outbound_trunks');
  });

  it('deleting an account removes its limits', async () => {
    const gone = await createSubAccount(srv, srv.master.account_id, 'Gone');
    await srv.request('POST', limitsOf(gone.id, 'v1'), { token: srv.adminToken, data: { inbound_trunks: 1 } });
    expect((await srv.request('DELETE', `/v2/accounts/${gone.id}`, { token: srv.adminToken })).status).toBe(200);
    const left = srv.core.db.prepare('SELECT COUNT(*) AS n FROM limits WHERE account_id = ?').get(gone.id) as { n: number };
    expect(left.n).toBe(0);
  });
});
