import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { addToPool, listPool } from './pool.js';

const enc = encodeURIComponent;

describe('phone numbers: the pool, a number bought, changed and released (/v2/accounts/{id}/phone_numbers/…)', () => {
  let srv: TestServer;
  let shop: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  let shopToken: string;
  let otherToken: string;
  const num = (account: string, path = '') => `/v2/accounts/${account}/phone_numbers${path}`;

  beforeAll(async () => {
    srv = await startTestServer();
    shop = await createSubAccount(srv, srv.master.account_id, 'Number Shop');
    other = await createSubAccount(srv, srv.master.account_id, 'Number Other');
    shopToken = await srv.apiLogin(shop.apiKey);
    otherToken = await srv.apiLogin(other.apiKey);
    // the master account's pool: what the simulated carrier offers everyone the master resells to
    addToPool(srv.core, srv.master.account_id, ['+14155550100', '+14155550101', '+14155550102', '+14155550103', '+12125550100']);
  });
  afterAll(() => srv?.close());

  it("classifiers: Kazoo's number classes, and the class of one number", async () => {
    const r = await srv.request('GET', num(shop.id, '/classifiers'), { token: shopToken });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data)).toEqual(['tollfree_us', 'toll_us', 'emergency', 'caribbean', 'did_us', 'international', 'unknown']);
    expect(r.body.data.did_us).toMatchObject({ friendly_name: 'US DID', pretty_print: 'SS(###) ### - ####' });
    const one = await srv.request('GET', num(shop.id, '/classifiers/4155550100'), { token: shopToken });
    expect(one.body.data).toMatchObject({ name: 'did_us', number: '4155550100', e164: '+14155550100', friendly_name: 'US DID' });
    expect((await srv.request('GET', num(shop.id, `/classifiers/${enc('+18005550100')}`), { token: shopToken })).body.data.name).toBe('tollfree_us');
    expect((await srv.request('GET', num(shop.id, '/classifiers/911'), { token: shopToken })).body.data).toMatchObject({ name: 'emergency', emergency: true });
    expect((await srv.request('GET', num(shop.id, '/classifiers'), { token: otherToken })).status).toBe(403);
  });

  it('a search finds the numbers of the pools the account may buy from (quantity, offset, E.164 prefix); without a prefix it is a 400', async () => {
    const r = await srv.request('GET', num(shop.id, '?prefix=415&quantity=2'), { token: shopToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { number: '+14155550100', state: 'discovery' },
      { number: '+14155550101', state: 'discovery' },
    ]);
    const next = await srv.request('GET', num(shop.id, `?prefix=${enc('+1415')}&quantity=5&offset=3`), { token: shopToken });
    expect(next.body.data).toEqual([{ number: '+14155550103', state: 'discovery' }]);
    expect((await srv.request('GET', num(shop.id, '?prefix=999&quantity=5'), { token: shopToken })).body.data).toEqual([]);
    // the system's search needs no token
    const open = await srv.request('GET', '/v2/phone_numbers?prefix=212', { token: null });
    expect(open.body.data).toEqual([{ number: '+12125550100', state: 'discovery' }]);
    const bad = await srv.request('GET', '/v2/phone_numbers?quantity=2', { token: null });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toHaveProperty('prefix.required');
    expect((await srv.request('GET', num(shop.id, '?prefix=41'), { token: shopToken })).body.data).toHaveProperty('prefix.minLength');
  });

  it('a reseller offers its own pool to its accounts: they find it before the master\'s', async () => {
    const reseller = await createSubAccount(srv, srv.master.account_id, 'Pool Reseller');
    expect((await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken })).status).toBe(201);
    const customer = await createSubAccount(srv, reseller.id, 'Pool Customer');
    addToPool(srv.core, reseller.id, ['+14155559900']);
    const token = await srv.apiLogin(customer.apiKey);
    expect((await srv.request('GET', num(customer.id, '?prefix=415&quantity=5'), { token })).body.data).toEqual([{ number: '+14155559900', state: 'discovery' }]);
    // the master's customers do not see the reseller's pool
    expect((await srv.request('GET', num(shop.id, '?prefix=4155559'), { token: shopToken })).body.data).toEqual([]);
  });

  it('check says which numbers of a collection a pool the account may buy from offers (any pool, for a super-duper admin)', async () => {
    const numbers = ['+14155550103', '4155559900', '+19995550000'];
    const r = await srv.request('POST', num(shop.id, '/check'), { token: shopToken, data: { numbers } });
    expect(r.status).toBe(200);
    // the master's pool is the shop's; the reseller's is not; the last is in no pool
    expect(r.body.data).toEqual({ '+14155550103': 'success', '4155559900': 'error', '+19995550000': 'error' });
    const admin = await srv.request('POST', num(shop.id, '/check'), { token: srv.adminToken, data: { numbers } });
    expect(admin.body.data).toEqual({ '+14155550103': 'success', '4155559900': 'success', '+19995550000': 'error' });
  });

  it('activation buys a number: in service in the inventory, with the features it may have; out of the pool', async () => {
    const r = await srv.request('PUT', num(shop.id, `/${enc('+14155550100')}/activate`), { token: shopToken, data: {} });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ id: '+14155550100', state: 'in_service', _read_only: { carrier_module: 'managed' } });
    expect(r.body.data._read_only.features.available).toEqual(expect.arrayContaining(['cnam', 'e911', 'prepend']));
    expect(r.body.data._read_only.features.available).not.toContain('carrier_name');
    const inventory = await srv.request('GET', num(shop.id), { token: shopToken });
    expect(inventory.body.data.numbers['+14155550100']).toMatchObject({ assigned_to: shop.id, state: 'in_service', features: [], features_available: expect.arrayContaining(['cnam', 'e911']) });
    expect(listPool(srv.core, { prefix: '+14155550100' }).items).toEqual([]);
    // bought already: another account cannot buy it, and activating it again changes nothing
    expect((await srv.request('PUT', num(other.id, `/${enc('+14155550100')}/activate`), { token: otherToken, data: {} })).status).toBe(403);
    expect((await srv.request('PUT', num(shop.id, `/${enc('+14155550100')}/activate`), { token: shopToken, data: {} })).body.data.state).toBe('in_service');
    // not in any pool: Kazoo's 404 bad identifier
    const missing = await srv.request('PUT', num(shop.id, `/${enc('+14155551234')}/activate`), { token: shopToken, data: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.data).toEqual({ message: 'bad identifier', not_found: 'The number could not be found' });
  });

  it('a collection activation buys several, answering each by number', async () => {
    const r = await srv.request('PUT', num(shop.id, '/collection/activate'), { token: shopToken, data: { numbers: ['+14155550101', '4155550102', '+14155557777'] } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data.success)).toEqual(['+14155550101', '+14155550102']);
    expect(r.body.data.error['+14155557777']).toMatchObject({ code: 404, error: 'not_found' });
    const twice = await srv.request('PUT', num(shop.id, '/collection/activate'), { token: shopToken, data: { numbers: ['+14155550101', '4155550101'] } });
    expect(twice.status).toBe(400);
    expect(twice.body.data).toHaveProperty('numbers.uniqueItems');
    // a collection is bounded (each number its own transaction on the event loop); bulk sets are resource jobs
    const tooMany = Array.from({ length: 101 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`);
    const big = await srv.request('PUT', num(shop.id, '/collection/activate'), { token: shopToken, data: { numbers: tooMany } });
    expect(big.status).toBe(400);
    expect(big.body.data).toHaveProperty('numbers.maxItems');
  });

  it("a number's document: cnam, e911 and prepend turn features on (Kazoo's checks on each); PATCH merges, POST replaces", async () => {
    const path = num(shop.id, `/${enc('+14155550101')}`);
    const cnam = await srv.request('POST', path, { token: shopToken, data: { cnam: { display_name: 'Shop Front', inbound_lookup: true }, my_field: 1 } });
    expect(cnam.status).toBe(200);
    expect(cnam.body.data).toMatchObject({ cnam: { display_name: 'Shop Front', inbound_lookup: true }, my_field: 1, features: ['outbound_cnam', 'inbound_cnam'] });
    const tooLong = await srv.request('PATCH', path, { token: shopToken, data: { cnam: { display_name: 'A name far too long' } } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.data).toHaveProperty(['cnam.display_name', 'maxLength']);
    const partial = await srv.request('PATCH', path, { token: shopToken, data: { e911: { street_address: '1 Main St' } } });
    expect(partial.status).toBe(400);
    expect(partial.body.data).toHaveProperty(['e911.postal_code', 'required']);
    const address = { street_address: '116 Natoma St', locality: 'San Francisco', region: 'CA', postal_code: '94105' };
    const e911 = await srv.request('PATCH', path, { token: shopToken, data: { e911: address, prepend: { enabled: true, name: 'SHOP' } } });
    expect(e911.status).toBe(200);
    expect(e911.body.data.features).toEqual(['outbound_cnam', 'inbound_cnam', 'e911', 'prepend']);
    expect(e911.body.data).toMatchObject({ my_field: 1, e911: address });
    // a feature the number may not have: failover is for trunkstore numbers (Kazoo's 403)
    const failover = await srv.request('PATCH', path, { token: shopToken, data: { failover: { e164: '+14155550999' } } });
    expect(failover.status).toBe(403);
    expect(failover.body).toMatchObject({ message: 'forbidden', data: { code: 403, error: 'forbidden' } });
    const replaced = await srv.request('POST', path, { token: shopToken, data: { cnam: { display_name: 'Shop' } } });
    expect(replaced.body.data.features).toEqual(['outbound_cnam']);
    expect(replaced.body.data.my_field).toBeUndefined();
    const read = await srv.request('GET', path, { token: shopToken });
    expect(read.body.data).toMatchObject({ id: '+14155550101', state: 'in_service', cnam: { display_name: 'Shop' }, features: ['outbound_cnam'] });
    expect((await srv.request('GET', num(shop.id), { token: shopToken })).body.data.numbers['+14155550101'].features).toEqual(['outbound_cnam']);
    // another tenant neither reads nor changes it
    expect((await srv.request('GET', num(other.id, `/${enc('+14155550101')}`), { token: otherToken })).status).toBe(404);
    expect((await srv.request('POST', num(other.id, `/${enc('+14155550101')}`), { token: otherToken, data: {} })).status).toBe(404);
  });

  it('a callflow routing a number uses it (used_by), until the callflow stops routing it or goes', async () => {
    const usedBy = async () => (await srv.request('GET', num(shop.id), { token: shopToken })).body.data.numbers['+14155550102'].used_by;
    const cf = await srv.request('PUT', `/v2/accounts/${shop.id}/callflows`, { token: shopToken, data: { name: 'Main', numbers: ['4155550102'], flow: { module: 'user', data: {} } } });
    expect(cf.status).toBe(201);
    expect(await usedBy()).toBe('callflow');
    expect((await srv.request('GET', num(shop.id, `/${enc('+14155550102')}`), { token: shopToken })).body.data.used_by).toBe('callflow');
    await srv.request('POST', `/v2/accounts/${shop.id}/callflows/${cf.body.data.id}`, { token: shopToken, data: { name: 'Main', numbers: ['1000'], flow: { module: 'user', data: {} } } });
    expect(await usedBy()).toBeUndefined();
    await srv.request('PATCH', `/v2/accounts/${shop.id}/callflows/${cf.body.data.id}`, { token: shopToken, data: { numbers: ['1000', '+14155550102'] } });
    expect(await usedBy()).toBe('callflow');
    await srv.request('DELETE', `/v2/accounts/${shop.id}/callflows/${cf.body.data.id}`, { token: shopToken });
    expect(await usedBy()).toBeUndefined();
  });

  it('identify tells the account a number is in service for (not another tenant\'s)', async () => {
    const r = await srv.request('GET', num(shop.id, `/${enc('+14155550100')}/identify`), { token: shopToken });
    expect(r.body.data).toEqual({ account_id: shop.id, number: '+14155550100' });
    expect((await srv.request('GET', num(other.id, `/${enc('+14155550100')}/identify`), { token: otherToken })).status).toBe(404);
  });

  it('a reservation: from the pool, and again for the same account is no change', async () => {
    const r = await srv.request('PUT', num(shop.id, `/${enc('+14155550103')}/reserve`), { token: shopToken, data: {} });
    expect(r.status).toBe(201);
    expect(r.body.data.state).toBe('reserved');
    const again = await srv.request('PUT', num(shop.id, `/${enc('+14155550103')}/reserve`), { token: shopToken, data: {} });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ message: 'no_change_required', data: { code: 400, error: 'no_change_required' } });
    expect((await srv.request('GET', num(shop.id, '?filter_state=reserved'), { token: shopToken })).body.data.numbers).toHaveProperty(['+14155550103']);
    // a JSON list of states keeps the numbers in any of them, as SmartPBX asks for its numbers
    const states = async (list: string[]) =>
      Object.keys((await srv.request('GET', num(shop.id, `?filter_state=${encodeURIComponent(JSON.stringify(list))}&paginate=false`), { token: shopToken })).body.data.numbers);
    expect(await states(['in_service', 'port_in'])).toContain('+14155550100');
    expect(await states(['in_service', 'port_in'])).not.toContain('+14155550103');
    expect(await states(['in_service', 'reserved'])).toEqual(expect.arrayContaining(['+14155550100', '+14155550103']));
  });

  it('release: back to the pool it came from, available, its document reset; a super-duper admin deletes for good with hard', async () => {
    const r = await srv.request('DELETE', num(shop.id, `/${enc('+14155550101')}`), { token: shopToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: '+14155550101', state: 'available' });
    expect(r.body.data.cnam).toBeUndefined();
    expect((await srv.request('GET', num(shop.id), { token: shopToken })).body.data.numbers['+14155550101']).toBeUndefined();
    expect((await srv.request('GET', num(other.id, '?prefix=4155550101'), { token: otherToken })).body.data).toEqual([{ number: '+14155550101', state: 'discovery' }]);
    // releasing what the account does not hold is not found
    expect((await srv.request('DELETE', num(shop.id, `/${enc('+14155550101')}`), { token: shopToken })).status).toBe(404);
    const hard = await srv.request('DELETE', num(shop.id, `/${enc('+14155550103')}?hard=true`), { token: srv.adminToken });
    expect(hard.body.data.state).toBe('deleted');
    expect(listPool(srv.core, { prefix: '+14155550103' }).items).toEqual([]);
    const many = await srv.request('DELETE', num(shop.id, '/collection'), { token: shopToken, data: { numbers: ['+14155550102', '+14155550100'] } });
    expect(Object.keys(many.body.data.success).sort()).toEqual(['+14155550100', '+14155550102']);
  });

  it('creating a number: a super-duper admin only (or a port in); one held is 409; create_with_state available stocks the pool', async () => {
    const denied = await srv.request('PUT', num(shop.id, `/${enc('+13125550100')}`), { token: shopToken, data: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.data).toMatchObject({ error: 'forbidden', cause: "creating number in state 'in_service' is not allowed" });
    const made = await srv.request('PUT', num(shop.id, `/${enc('+13125550100')}`), { token: srv.adminToken, data: { create_with_state: 'reserved', note: 'x' } });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ id: '+13125550100', state: 'reserved', note: 'x', _read_only: { carrier_module: 'local' } });
    expect(made.body.data._read_only.features.available).not.toContain('cnam');
    const exists = await srv.request('PUT', num(other.id, `/${enc('+13125550100')}`), { token: srv.adminToken, data: {} });
    expect(exists.status).toBe(409);
    expect(exists.body).toMatchObject({ message: 'number_exists', data: { code: 409, error: 'number_exists', cause: '+13125550100' } });
    const port = await srv.request('PUT', num(shop.id, `/${enc('+13125550199')}/port`), { token: shopToken, data: {} });
    expect(port.body.data.state).toBe('port_in');
    const stock = await srv.request('PUT', num(srv.master.account_id, `/${enc('+13125550200')}`), { token: srv.adminToken, data: { create_with_state: 'available' } });
    expect(stock.body.data.state).toBe('available');
    expect((await srv.request('GET', num(shop.id, '?prefix=3125550200'), { token: shopToken })).body.data).toEqual([{ number: '+13125550200', state: 'discovery' }]);
    const info = await srv.request('GET', num(shop.id, '/carriers_info'), { token: shopToken });
    expect(info.body.data).toEqual({ maximal_prefix_length: 15, usable_carriers: ['local', 'managed'], usable_creation_states: [] });
  });

  it('an account that goes gives back what it bought from a pool', async () => {
    const leaving = await createSubAccount(srv, srv.master.account_id, 'Leaving Numbers');
    const token = await srv.apiLogin(leaving.apiKey);
    addToPool(srv.core, srv.master.account_id, ['+16175550100']);
    expect((await srv.request('PUT', num(leaving.id, '/collection/activate'), { token, data: { numbers: ['+16175550100'] } })).status).toBe(201);
    expect((await srv.request('DELETE', `/v2/accounts/${leaving.id}`, { token: srv.adminToken })).status).toBe(200);
    expect(listPool(srv.core, { prefix: '+16175550100' }).items.map((p) => p.account_id)).toEqual([srv.master.account_id]);
  });
});
