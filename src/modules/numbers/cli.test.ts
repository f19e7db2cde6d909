import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';

describe('tel numbers pool … on the database file, beside a running server', () => {
  let srv: TestServer;
  let shop: { id: string; apiKey: string };
  const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile]);

  beforeAll(async () => {
    srv = await startTestServer();
    shop = await createSubAccount(srv, srv.master.account_id, 'Pool Shop');
  });
  afterAll(() => srv?.close());

  it('add --count stocks the master pool with a range: the API then finds and sells it', async () => {
    const added = await tel('numbers', 'pool', 'add', '4155550100', '--count', '3', '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({ account_id: srv.master.account_id, added: ['+14155550100', '+14155550101', '+14155550102'], refused: {} });
    const token = await srv.apiLogin(shop.apiKey);
    const found = await srv.request('GET', `/v2/accounts/${shop.id}/phone_numbers?prefix=415555&quantity=10`, { token });
    expect(found.body.data.map((n: any) => n.number)).toEqual(['+14155550100', '+14155550101', '+14155550102']);
    expect((await srv.request('PUT', `/v2/accounts/${shop.id}/phone_numbers/%2B14155550100/activate`, { token, data: {} })).status).toBe(201);
    // a number an account holds or a pool offers is left out, and said so
    const again = await tel('numbers', 'pool', 'add', '+14155550100', '+14155550101', '+14155550199');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/\+14155550100: an account holds it, left out/);
    expect(again.stderr).toMatch(/\+14155550101: already in a pool, left out/);
    expect(again.stdout).toMatch(/Added 1 number to the pool/);
    const listed = await tel('numbers', 'pool', 'list', '--prefix', '+141555501', '--json');
    expect(JSON.parse(listed.stdout).map((r: any) => r.number)).toEqual(['+14155550101', '+14155550102', '+14155550199']);
    const mine = await tel('numbers', 'list', '--account', 'Pool Shop', '--json');
    expect(JSON.parse(mine.stdout)).toEqual([expect.objectContaining({ number: '+14155550100', state: 'in_service', assigned_to: shop.id })]);
  });

  it("--account offers numbers to a reseller's accounts only; remove takes them back out; nonsense is refused", async () => {
    const reseller = await createSubAccount(srv, srv.master.account_id, 'Pool Reseller');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken });
    const r = await tel('numbers', 'pool', 'add', '+442071234000', '--count', '2', '--account', 'Pool Reseller');
    expect(r.code, r.stderr).toBe(0);
    expect((await tel('numbers', 'pool', 'list', '--account', reseller.id)).stdout).toMatch(/\+442071234000\s+[0-9a-f]{32}\n\+442071234001/);
    const removed = await tel('numbers', 'pool', 'remove', '+442071234000', '+442071234999', '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ removed: ['+442071234000'] });
    const bad = await tel('numbers', 'pool', 'add', 'hello');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/hello: not an E\.164 number, left out/);
    expect((await tel('numbers', 'pool', 'add', '+1415', '+1416', '--count', '2')).code).toBe(2);
  });
});
