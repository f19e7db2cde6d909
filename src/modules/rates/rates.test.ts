import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/** Rating (`/v2/rates`) and resource selectors (`/v2/accounts/{id}/resource_selectors`): what picks and prices a carrier. */
describe('rates and resource selectors', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const admin = () => ({ token: srv.adminToken });

  beforeAll(async () => {
    srv = await startTestServer();
    const a = await createSubAccount(srv, srv.master.account_id, 'Rated');
    account = a.id;
    token = await srv.apiLogin(a.apiKey);
  });
  afterAll(() => srv?.close());

  it("rates are a super-duper admin's, with Kazoo's ids and default route; a second of an id is a conflict", async () => {
    expect((await srv.request('GET', '/v2/rates', { token })).status).toBe(403);
    expect((await srv.request('PUT', '/v2/rates', { token, data: { prefix: 1, rate_cost: 0.1 } })).status).toBe(403);
    const us = await srv.request('PUT', '/v2/rates', { ...admin(), data: { prefix: '1', rate_cost: 0.01, iso_country_code: 'US', rate_name: 'US', description: 'North America' } });
    expect(us.status, us.text).toBe(201);
    expect(us.body.data).toMatchObject({ id: 'US-1', prefix: 1, routes: ['^\\+?1.+$'] });
    expect((await srv.request('PUT', '/v2/rates', { ...admin(), data: { prefix: 1, rate_cost: 0.02, iso_country_code: 'US' } })).status).toBe(409);
    expect((await srv.request('PUT', '/v2/rates', { ...admin(), data: { prefix: 1, rate_cost: -1 } })).body.data.rate_cost.minimum).toBeDefined();
    const list = await srv.request('GET', '/v2/rates', admin());
    expect(list.body.data).toEqual([{ id: 'US-1', name: 'US', cost: 0.01, prefix: 1, description: 'North America' }]);
    expect((await srv.request('PATCH', '/v2/rates/US-1', { ...admin(), data: { weight: 10 } })).body.data).toMatchObject({ weight: 10, rate_cost: 0.01 });
  });

  it('a number is rated by its longest prefix whose routes and direction match, the lighter weight first; its fields are Kazoo\'s', async () => {
    const put = (data: Record<string, unknown>) => srv.request('PUT', '/v2/rates', { ...admin(), data });
    await put({ prefix: 1415, rate_cost: 0.02, rate_surcharge: 0.05, rate_minimum: 120, iso_country_code: 'US', rate_suffix: 'sf', rate_name: 'SF', weight: 50 });
    await put({ prefix: 1415, rate_cost: 0.03, iso_country_code: 'US', rate_suffix: 'sf2', rate_name: 'SF heavy', weight: 90 });
    await put({ prefix: 1415555, rate_cost: 0.5, iso_country_code: 'US', rate_suffix: 'in', rate_name: 'Inbound only', direction: ['inbound'] });
    await put({ prefix: 14155, rate_cost: 0.9, iso_country_code: 'US', rate_suffix: 'never', routes: ['^\\+1999'] });
    const rated = await srv.request('GET', '/v2/rates/number/4155550100?direction=outbound', { token });
    expect(rated.status, rated.text).toBe(200);
    expect(rated.body.data).toEqual({
      'Base-Cost': 0.09,
      'E164-Number': '+14155550100',
      Prefix: 1415,
      Rate: '200',
      'Rate-ID': 'US-1415-sf',
      'Rate-Increment': 60,
      'Rate-Minimum': '120',
      'Rate-Name': 'SF',
      'Ratedeck-ID': 'ratedeck',
      Surcharge: '500',
    });
    // inbound, the inbound-only rate's longer prefix wins
    expect((await srv.request('GET', '/v2/rates/number/+14155550100?direction=inbound', { token })).body.data['Rate-ID']).toBe('US-1415555-in');
    const unrateable = await srv.request('GET', '/v2/rates/number/1000', { token });
    expect(unrateable.status).toBe(400);
    expect(unrateable.body.data['number format'].error.message).toBe('Number is un-rateable');
    const none = await srv.request('GET', '/v2/rates/number/+442071234567', { token });
    expect(none.status).toBe(500);
    expect(none.body.message).toBe('No rate found for this number');
    // the rates a prefix could use, the longest first
    const forPrefix = await srv.request('GET', '/v2/rates?prefix=14155550100', admin());
    expect(forPrefix.body.data.map((r: { id: string }) => r.id)).toEqual(['US-1415555-in', 'US-14155-never', 'US-1415-sf', 'US-1415-sf2', 'US-1']);
    // a listing of rates/lookup (crossbar_view), with its page_size
    expect(forPrefix.body.page_size).toBe(5);
  });

  it('each ratedeck keeps its own rates; the ratedecks are listed', async () => {
    const made = await srv.request('PUT', '/v2/rates?ratedeck_id=wholesale', { ...admin(), data: { prefix: 44, rate_cost: 0.04, iso_country_code: 'GB' } });
    expect(made.status, made.text).toBe(201);
    expect((await srv.request('GET', '/v2/rates/GB-44', admin())).status).toBe(404);
    expect((await srv.request('GET', '/v2/rates/GB-44?ratedeck_id=wholesale', admin())).body.data.rate_cost).toBe(0.04);
    expect((await srv.request('GET', '/v2/rates/number/+442071234567?ratedeck_id=wholesale', { token })).body.data['Rate-ID']).toBe('GB-44');
    expect((await srv.request('GET', '/v2/rates/ratedecks', admin())).body.data).toEqual({ default_ratedeck: 'ratedeck', ratedecks: ['ratedeck', 'wholesale'] });
    expect((await srv.request('GET', '/v2/rates/ratedecks', { token })).status).toBe(403);
    expect((await srv.request('DELETE', '/v2/rates/GB-44?ratedeck_id=wholesale', admin())).body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', '/v2/rates?ratedeck_id=../x', admin())).status).toBe(400);
  });

  it('resource selectors are written by id, counted by name and by resource, listed by both; the rules are kept with the account', async () => {
    const base = `/v2/accounts/${account}/resource_selectors`;
    const put = (id: string, name: string, resource: string, selector: string) =>
      srv.request('POST', `${base}/${id}`, { token, data: { name, resource, selector, value: '0.1' } });
    const first = await put('sel-1', 'lcr', 'carrier-a', '1415');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({ id: 'sel-1', name: 'lcr', resource: 'carrier-a' });
    await put('sel-2', 'lcr', 'carrier-b', '1415');
    await put('sel-3', 'lcr', 'carrier-a', '1212');
    await put('sel-4', 'prefix', 'carrier-a', '44');
    // a second write of an id changes it
    expect((await put('sel-4', 'prefix', 'carrier-b', '44')).body.data.resource).toBe('carrier-b');
    expect((await srv.request('POST', `${base}/sel-5`, { token, data: { name: 'lcr' } })).body.data.resource.required).toBeDefined();
    expect((await srv.request('POST', `${base}/${encodeURIComponent('a b')}`, { token, data: { name: 'x', resource: 'y', selector: 'z' } })).status).toBe(400);
    expect((await srv.request('GET', `${base}/name`, { token })).body.data).toEqual([{ lcr: 3 }, { prefix: 1 }]);
    const names = await srv.request('GET', `${base}/name?page_size=1`, { token });
    expect(names.body.data).toEqual([{ lcr: 3 }]);
    expect((await srv.request('GET', `${base}/name?page_size=1&start_key=${names.body.next_start_key}`, { token })).body.data).toEqual([{ prefix: 1 }]);
    expect((await srv.request('GET', `${base}/name/lcr`, { token })).body.data).toEqual([{ 'carrier-a': 2 }, { 'carrier-b': 1 }]);
    expect((await srv.request('GET', `${base}/resource`, { token })).body.data).toEqual([{ 'carrier-a': 2 }, { 'carrier-b': 2 }]);
    expect((await srv.request('GET', `${base}/resource/carrier-b`, { token })).body.data).toEqual([{ lcr: 1 }, { prefix: 1 }]);
    const both = await srv.request('GET', `${base}/name/lcr/resource/carrier-a`, { token });
    expect(both.body.data.map((s: { id: string }) => s.id)).toEqual(['sel-1', 'sel-3']);
    expect((await srv.request('GET', `${base}/resource/carrier-a/name/lcr`, { token })).body.data).toEqual(both.body.data);
    expect((await srv.request('GET', base, { token })).body.data).toHaveLength(4);
    expect((await srv.request('DELETE', `${base}/sel-3`, { token })).body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', `${base}/name/lcr`, { token })).body.data).toEqual([{ 'carrier-a': 1 }, { 'carrier-b': 1 }]);
    // an id another document holds is not taken over
    const user = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { first_name: 'A', last_name: 'B' } })).body.data.id;
    expect((await srv.request('POST', `${base}/${user}`, { token, data: { name: 'x', resource: 'y', selector: 'z' } })).status).toBe(409);
    // rules
    expect((await srv.request('GET', `${base}/rules`, { token })).status).toBe(404);
    const rules = { rules: [{ get_resources: {} }, { filter_list: { value_a: 'request:Flags', value_b: 'resource:flags', action: 'keep' } }] };
    expect((await srv.request('POST', `${base}/rules`, { token, data: rules })).body.data).toEqual({ ...rules, id: 'resource_selector_rules' });
    expect((await srv.request('GET', `${base}/rules`, { token })).body.data).toEqual({ ...rules, id: 'resource_selector_rules' });
  });
});
