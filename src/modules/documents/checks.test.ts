import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe("Kazoo's checks beyond the schemas: what must be unique, and where", () => {
  let srv: TestServer;
  let a: string;
  let b: string;
  const put = (account: string, endpoint: string, data: Record<string, unknown>) =>
    srv.request('PUT', `/v2/accounts/${account}/${endpoint}`, { token: srv.adminToken, data });

  beforeAll(async () => {
    srv = await startTestServer();
    a = (await createSubAccount(srv, srv.master.account_id, 'Checks A')).id;
    b = (await createSubAccount(srv, srv.master.account_id, 'Checks B')).id;
  });
  afterAll(() => srv.close());

  it('a callflow needs a number or a pattern; each routes one callflow of the account', async () => {
    const none = await put(a, 'callflows', { name: 'Nothing' });
    expect(none.status).toBe(400);
    expect(none.body.data).toEqual({ numbers: { required: { message: 'Callflows must be assigned at least one number or pattern' } } });
    const main = await put(a, 'callflows', { name: 'Main', numbers: ['1000', '+14155550100'], patterns: ['^\\*9\\d+$'] });
    expect(main.status).toBe(201);
    const clash = await put(a, 'callflows', { name: 'Other', numbers: ['2000', '1000'], patterns: ['^\\*9\\d+$'] });
    expect(clash.status).toBe(400);
    expect(clash.body.data).toEqual({
      numbers: { unique: { message: `Number 1000 exists in callflow ${main.body.data.id} Main`, cause: '1000' } },
      patterns: { unique: { message: `Pattern ^\\*9\\d+$ exists in callflow ${main.body.data.id} Main`, cause: '^\\*9\\d+$' } },
    });
    // the callflow itself may keep its numbers; another account may have them
    expect((await srv.request('POST', `/v2/accounts/${a}/callflows/${main.body.data.id}`, { token: srv.adminToken, data: { name: 'Main 2', numbers: ['1000'] } })).status).toBe(200);
    expect((await put(b, 'callflows', { numbers: ['1000'] })).status).toBe(201);
  });

  it("a callflow's numbers are stored and compared as Kazoo normalises them: E.164 by the converters, extensions as written", async () => {
    const token = srv.adminToken;
    const made = await put(a, 'callflows', {
      name: 'Normalised',
      numbers: ['4155550101', '14155550102', '+14155550103', '011441234567890', '0033123456789', '33123456', '1001', '*97', '001'],
    });
    expect(made.status, made.text).toBe(201);
    const stored = ['+14155550101', '+14155550102', '+14155550103', '+441234567890', '+33123456789', '+33123456', '1001', '*97', '001'];
    expect(made.body.data.numbers).toEqual(stored);
    expect((await srv.request('GET', `/v2/accounts/${a}/callflows/${made.body.data.id}`, { token })).body.data.numbers).toEqual(stored);
    // the same number written otherwise is the same number: Kazoo's 400, naming it as stored
    for (const written of ['+14155550101', '14155550101', '4155550101']) {
      const clash = await put(a, 'callflows', { name: 'Copy', numbers: [written] });
      expect(clash.status, written).toBe(400);
      expect(clash.body.data).toEqual({
        numbers: { unique: { message: `Number +14155550101 exists in callflow ${made.body.data.id} Normalised`, cause: '+14155550101' } },
      });
    }
    // two forms of one number in one callflow are one number twice: the schema's uniqueItems
    const twice = await put(a, 'callflows', { name: 'Twice', numbers: ['4155550104', '+14155550104'] });
    expect(twice.status).toBe(400);
    expect(twice.body.data.numbers.uniqueItems).toBeDefined();
    // a PATCH normalises the numbers stored before, as Kazoo's merges then validates the whole
    const old = srv.core.db.prepare("SELECT id FROM docs WHERE kind = 'callflow' AND account_id = ? AND json_extract(doc, '$.name') = 'Main 2'").get(a) as { id: string };
    srv.core.db.prepare("UPDATE docs SET doc = json_set(doc, '$.numbers', json('[\"1000\", \"4155550105\"]')) WHERE id = ?").run(old.id);
    const patched = await srv.request('PATCH', `/v2/accounts/${a}/callflows/${old.id}`, { token, data: { name: 'Main 3' } });
    expect(patched.body.data.numbers).toEqual(['1000', '+14155550105']);
  });

  it("the account's dial plan, then the number_manager e164_converters its settings, its reseller's or the system's give", async () => {
    const token = srv.adminToken;
    const numbersOf = async (account: string, numbers: string[]) => {
      const r = await put(account, 'callflows', { numbers });
      expect(r.status, r.text).toBe(201);
      await srv.request('DELETE', `/v2/accounts/${account}/callflows/${r.body.data.id}`, { token });
      return r.body.data.numbers;
    };
    const dialPlan = await srv.request('POST', `/v2/accounts/${b}`, { token, data: { name: 'Checks B', dial_plan: { '^(\\d{7})$': { prefix: '+1415' } } } });
    expect(dialPlan.status, dialPlan.text).toBe(200);
    expect(await numbersOf(b, ['5550106', '4155550107', '1002'])).toEqual(['+14155550106', '+14155550107', '1002']);
    // the master is the reseller of A and B: its converters replace the built-in ones below it
    const master = `/v2/accounts/${srv.master.account_id}/configs/number_manager`;
    await srv.request('POST', master, { token, data: { e164_converters: { '^0(\\d{9})$': { prefix: '+33' } } } });
    try {
      expect(await numbersOf(a, ['0612345678', '4155550108'])).toEqual(['+33612345678', '4155550108']);
      // A's own settings of the category, even without the key, hide the reseller's (Kazoo's get_global): the system's apply
      await srv.request('POST', `/v2/accounts/${a}/configs/number_manager`, { token, data: { unauthorized_numbers_lookup: true } });
      expect(await numbersOf(a, ['0612345678', '4155550108'])).toEqual(['0612345678', '+14155550108']);
      await srv.request('POST', '/v2/system_configs/number_manager', { token, data: { default: { e164_converters: { '^9(\\d+)$': { prefix: '+49', suffix: '0' } } } } });
      expect(await numbersOf(a, ['912345', '4155550108'])).toEqual(['+49123450', '4155550108']);
    } finally {
      await srv.request('DELETE', `/v2/accounts/${a}/configs/number_manager`, { token });
      await srv.request('DELETE', master, { token });
      await srv.request('DELETE', '/v2/system_configs/number_manager', { token });
    }
    expect(await numbersOf(a, ['0612345678', '4155550108'])).toEqual(['0612345678', '+14155550108']);
  });

  it('a mailbox is a number no other box of the account has (compared as numbers)', async () => {
    expect((await put(a, 'vmboxes', { name: 'One', mailbox: '0100' })).status).toBe(201);
    for (const mailbox of ['100', 'abc']) {
      const r = await put(a, 'vmboxes', { name: 'Two', mailbox });
      expect(r.status, mailbox).toBe(400);
      expect(r.body.data.mailbox.unique).toEqual({ message: 'Invalid mailbox number or already exists' });
    }
    expect((await put(b, 'vmboxes', { name: 'Elsewhere', mailbox: '100' })).status).toBe(201);
  });

  it("a device's MAC address (however written) and SIP username are its own in the account", async () => {
    expect((await put(a, 'devices', { name: 'Desk', mac_address: '00:11:22:AA:BB:CC', sip: { username: 'desk1' } })).status).toBe(201);
    const r = await put(a, 'devices', { name: 'Copy', mac_address: '001122aabbcc', sip: { username: 'DESK1' } });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({
      mac_address: { unique: { message: 'MAC address already in use', cause: '001122aabbcc' } },
      'sip.username': { unique: { message: 'SIP credentials already in use', cause: 'DESK1' } },
    });
    // authenticated by IP, a SIP username is not a credential
    expect((await put(a, 'devices', { name: 'By IP', sip: { username: 'desk1', method: 'ip', ip: '10.0.0.9' } })).status).toBe(201);
  });

  it('a MAC address or a number is free again once its document changes it or is deleted; a MAC address without hex digits is none', async () => {
    const path = (endpoint: string, docId: string) => `/v2/accounts/${a}/${endpoint}/${docId}`;
    const moving = await put(a, 'devices', { name: 'Moving', mac_address: 'aa-bb-cc-00-00-01' });
    expect(moving.status, moving.text).toBe(201);
    expect((await put(a, 'devices', { name: 'Twin', mac_address: 'AABB.CC00.0001' })).status).toBe(400);
    // written with other characters than separators, compared cleaned all the same
    const odd = await put(a, 'devices', { name: 'Odd', mac_address: 'aa_bb_cc_00_00_02' });
    expect(odd.status, odd.text).toBe(201);
    expect((await put(a, 'devices', { name: 'Odd twin', mac_address: 'AABBCC000002' })).body.data.mac_address.unique).toBeDefined();
    const patched = await srv.request('PATCH', path('devices', moving.body.data.id), { token: srv.adminToken, data: { mac_address: 'aa:bb:cc:00:00:03' } });
    expect(patched.status, patched.text).toBe(200);
    expect((await put(a, 'devices', { name: 'Taker', mac_address: 'aabbcc000001' })).status).toBe(201);
    expect((await srv.request('DELETE', path('devices', odd.body.data.id), { token: srv.adminToken })).status).toBe(200);
    expect((await put(a, 'devices', { name: 'Heir', mac_address: 'aabbcc000002' })).status).toBe(201);
    // Kazoo's provisioner keeps the hex digits of a MAC address: with none, a device has none
    for (const name of ['Unknown 1', 'Unknown 2']) expect((await put(a, 'devices', { name, mac_address: 'unknown' })).status).toBe(201);

    const flow = await put(a, 'callflows', { name: 'Renumbered', numbers: ['3000', '3001'] });
    expect(flow.status, flow.text).toBe(201);
    expect((await put(a, 'callflows', { name: 'Early', numbers: ['3001'] })).status).toBe(400);
    expect((await srv.request('PATCH', path('callflows', flow.body.data.id), { token: srv.adminToken, data: { numbers: ['3000'] } })).status).toBe(200);
    expect((await put(a, 'callflows', { name: 'Later', numbers: ['3001'] })).status).toBe(201);
    expect((await srv.request('DELETE', path('callflows', flow.body.data.id), { token: srv.adminToken })).status).toBe(200);
    expect((await put(a, 'callflows', { name: 'Heir', numbers: ['3000'] })).status).toBe(201);
  });

  it("a fax box's own SMTP address is no other fax box's, in any account", async () => {
    expect((await put(a, 'faxboxes', { name: 'Fax', custom_smtp_email_address: 'fax@example.com' })).status).toBe(201);
    const r = await put(b, 'faxboxes', { name: 'Fax', custom_smtp_email_address: 'fax@example.com' });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ custom_smtp_email_address: { unique: { message: 'email address must be unique', cause: 'fax@example.com' } } });
  });

  it("an account's name (as letters and digits) and realm are no other account's", async () => {
    const taken = await srv.request('GET', `/v2/accounts/${a}`, { token: srv.adminToken });
    const r = await srv.request('PUT', `/v2/accounts/${srv.master.account_id}`, {
      token: srv.adminToken,
      data: { name: 'checks-a', realm: taken.body.data.realm.toUpperCase() },
    });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({
      name: { unique: { message: 'Account name already in use', cause: 'checks-a' } },
      realm: { unique: { message: 'Account realm already in use', cause: taken.body.data.realm.toUpperCase() } },
    });
    // an account keeps its own; a new one gets the default timezone
    expect((await srv.request('PATCH', `/v2/accounts/${a}`, { token: srv.adminToken, data: { name: 'Checks A' } })).status).toBe(200);
    expect(taken.body.data.timezone).toBe('America/Los_Angeles');
  });
});
