import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installQueryLog, logged, planOf, rowsRead, wholeTableSteps } from './helpers/query-log.js';
import { httpRequest, tempDir, type ApiAnswer } from './helpers/server.js';

// Every statement of this process is logged: installed before the database is opened.
installQueryLog();
const { closeCore, openCore } = await import('../src/core.js');
const { initDatabase } = await import('../src/modules/accounts/bootstrap.js');
const { createAccount } = await import('../src/modules/accounts/service.js');
const { createApiServer } = await import('../src/http/server.js');
const { apiRouter } = await import('../src/http/api-router.js');

type Core = import('../src/core-type.js').Core;

const id = () => randomBytes(16).toString('hex');
const hex2 = (n: number) => (n & 255).toString(16).padStart(2, '0');
/** Device `i`'s MAC address, written with colons as phones print them. */
const macOf = (i: number) => `02:00:${[i >>> 24, i >>> 16, i >>> 8, i].map(hex2).join(':')}`;
const NAMES = { first_name: 'New', last_name: 'User' };
/** Peering resource `i`'s gateway address. */
const ipOf = (i: number) => `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;

/** What one write request cost: the most rows any of its statements read, and its statements' plans' whole-table steps. */
interface WriteCost {
  answer: ApiAnswer;
  mostRead: number;
  wholeTable: string[];
}

/**
 * Kazoo's uniqueness checks (a device's MAC address and SIP username, a callflow's numbers and
 * patterns, a user's hotdesk id, a mailbox, a fax box's address, a peering gateway's address, an
 * account's name and realm) are
 * each an index search: a write costs what it cost at a tenth of the documents.
 */
describe('writes checked for uniqueness read an index, whatever the size of the account', () => {
  const tmp = tempDir('tel-write-costs-');
  let core: Core;
  let server: Server;
  let url: string;
  let admin: string;
  let master: string;
  let objects: string;
  let made = 0;

  /** Adds `n` documents of each kind checked (and `n / 10` accounts), written directly as an older build could have left them. */
  function grow(n: number): void {
    for (let i = 0; i < n / 10; i++) createAccount(core, { name: `Customer ${made + i}` }, { parentId: master });
    const db = core.db;
    db.exec('BEGIN');
    const doc = db.prepare('INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const now = Date.now();
    for (let i = made; i < made + n; i++) {
      const put = (kind: string, body: Record<string, unknown>) => doc.run(id(), kind, objects, JSON.stringify(body), '{}', '1-x', now, now);
      put('device', { name: `Phone ${i}`, mac_address: macOf(i), sip: { username: `phone${i}` } });
      put('callflow', { name: `Flow ${i}`, numbers: [`+1415555${String(i).padStart(4, '0')}`, String(1000 + i)], patterns: [`^\\*${i}$`] });
      put('user', { ...NAMES, username: `user${i}`, hotdesk: { id: `hd${i}` } });
      put('vmbox', { name: `Box ${i}`, mailbox: String(5000 + i) });
      put('faxbox', { name: `Fax ${i}`, custom_smtp_email_address: `fax${i}@example.com` });
      put('resource', { name: `Peer ${i}`, peer: true, gateways: [{ server: ipOf(i) }] });
    }
    db.exec('COMMIT');
    made += n;
  }

  /** Sends one write and what it cost. */
  async function write(method: string, path: string, data: Record<string, unknown>): Promise<WriteCost> {
    const { result: answer, queries } = await logged(() => httpRequest(url, method, path, { token: admin, data }));
    let mostRead = 0;
    const wholeTable: string[] = [];
    for (const q of queries) {
      mostRead = Math.max(mostRead, rowsRead(core.db, q.sql, q.args));
      wholeTable.push(...wholeTableSteps(planOf(core.db, q.sql)).map((step) => `${step} in ${q.sql}`));
    }
    return { answer, mostRead, wholeTable };
  }

  /** The writes, each refused for the value it shares with a stored document, or made (the checks finding nothing). */
  const writes = (): [string, string, string, Record<string, unknown>, number, string?][] => {
    const o = `/v2/accounts/${objects}`;
    const n = made;
    return [
      ['a device whose MAC address is taken (written otherwise)', 'PUT', `${o}/devices`, { name: 'Copy', mac_address: macOf(7).replaceAll(':', '').toUpperCase() }, 400, 'mac_address'],
      ['a device whose SIP username is taken (in another case)', 'PUT', `${o}/devices`, { name: 'Copy', sip: { username: 'PHONE7' } }, 400, 'sip.username'],
      ['a new device', 'PUT', `${o}/devices`, { name: `New phone ${n}`, mac_address: macOf(10_000_000 + n), sip: { username: `new${n}` } }, 201],
      ['a callflow whose number is taken', 'PUT', `${o}/callflows`, { name: 'Copy', numbers: ['+12125550100', '1007'] }, 400, 'numbers'],
      ['a callflow whose number is taken (written without +1)', 'PUT', `${o}/callflows`, { name: 'Copy', numbers: ['4155550007'] }, 400, 'numbers'],
      ['a callflow whose pattern is taken', 'PUT', `${o}/callflows`, { name: 'Copy', patterns: ['^\\*7$'] }, 400, 'patterns'],
      ['a new callflow', 'PUT', `${o}/callflows`, { name: `New flow ${n}`, numbers: [`+1646${String(n).padStart(7, '0')}`] }, 201],
      ['a user whose hotdesk id is taken', 'PUT', `${o}/users`, { ...NAMES, username: `hotdesker${n}`, hotdesk: { id: 'hd7' } }, 400, 'hotdesk.id'],
      ['a new user with a hotdesk id', 'PUT', `${o}/users`, { ...NAMES, username: `hotdesker${n}`, hotdesk: { id: `new${n}` } }, 201],
      ['a voicemail box whose mailbox is taken', 'PUT', `${o}/vmboxes`, { name: 'Copy', mailbox: '5007' }, 400, 'mailbox'],
      ['a fax box whose address is taken', 'PUT', `${o}/faxboxes`, { name: 'Copy', custom_smtp_email_address: 'fax7@example.com' }, 400, 'custom_smtp_email_address'],
      ['a peering resource whose gateway address is taken', 'PUT', `${o}/resources`, { name: 'Copy', peer: true, gateways: [{ server: ipOf(7) }] }, 400, 'gateways.0.server'],
      ['a new peering resource', 'PUT', `${o}/resources`, { name: `New peer ${n}`, peer: true, gateways: [{ server: ipOf(10_000_000 + n) }] }, 201],
      ['an account whose name is taken', 'PUT', `/v2/accounts/${master}`, { name: 'customer-7' }, 400, 'name'],
      ['an account whose realm is taken', 'PUT', `/v2/accounts/${master}`, { name: `Other ${n}`, realm: 'OBJECTS.example.com' }, 400, 'realm'],
      ['a new account', 'PUT', `/v2/accounts/${master}`, { name: `Newcomer ${n}` }, 201],
    ];
  };

  beforeAll(async () => {
    core = openCore(join(tmp.dir, 'writes.db'));
    const init = initDatabase(core, { account: 'Lab', username: 'admin', password: 'admin-pass' });
    master = init.account_id;
    objects = createAccount(core, { name: 'Objects', realm: 'objects.example.com' }, { parentId: master }).id;
    server = createApiServer(core, apiRouter());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    admin = (await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: init.api_key } })).body.auth_token;
    core.config.setValue('crossbar.resources', 'allow_peers', true);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    closeCore(core);
    tmp.cleanup();
  });

  /** rows read by each write at 1× (the most any of its statements read) */
  const costs = new Map<string, number>();

  it('each check is an index search: no statement reads more rows at 10× the documents than at 1×, none a whole table', async () => {
    // a few MAC addresses written with other characters than separators: kept as written, compared by the check
    core.db.prepare('INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, 0, 0)')
      .run(id(), 'device', objects, JSON.stringify({ name: 'Odd', mac_address: '0e_00_00_00_00_01' }), '{}', '1-x');
    for (const [size, grown] of [['1×', 200], ['10×', 1800]] as const) {
      grow(grown);
      for (const [name, method, path, data, status, field] of writes()) {
        const { answer, mostRead, wholeTable } = await write(method, path, data);
        expect(answer.status, `${name} at ${size}: ${answer.text}`).toBe(status);
        if (field) expect(answer.body.data[field]?.unique, `${name}: ${answer.text}`).toBeDefined();
        expect(wholeTable, name).toEqual([]);
        // a lookup reads the row it finds (and the odd MAC address): a few rows, never one a document
        expect(mostRead, `${name} at ${size}`).toBeLessThanOrEqual(3);
        if (size === '1×') costs.set(name, mostRead);
        else expect(mostRead, `${name}: rows read at 10× as at 1×`).toBe(costs.get(name));
      }
    }
    const odd = await write('PUT', `/v2/accounts/${objects}/devices`, { name: 'Odd copy', mac_address: '0E:00:00:00:00:01' });
    expect(odd.answer.body.data?.mac_address?.unique, odd.answer.text).toBeDefined();
  });

  it("a peering resource's gateway address beside 10,000 peers costs what it cost beside 200", async () => {
    // 2,000 peers are there from the test above (one an account, as the other kinds): 8,000 more
    const insert = core.db.prepare('INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, 0, 0)');
    core.db.exec('BEGIN');
    for (let i = made; i < made + 8000; i++) insert.run(id(), 'resource', objects, JSON.stringify({ name: `Peer ${i}`, peer: true, gateways: [{ server: ipOf(i) }] }), '{}', '1-x');
    core.db.exec('COMMIT');
    expect((core.db.prepare("SELECT count(*) AS n FROM docs WHERE kind = 'resource' AND json_type(doc, '$.peer') = 'true'").get() as { n: number }).n).toBeGreaterThanOrEqual(10_000);
    const o = `/v2/accounts/${objects}/resources`;
    const writes: [string, Record<string, unknown>, number][] = [
      ['a peering resource whose gateway address is taken', { name: 'Copy', peer: true, gateways: [{ server: ipOf(made + 7999) }] }, 400],
      ['a new peering resource', { name: 'Newest peer', peer: true, gateways: [{ server: '192.0.2.1' }] }, 201],
    ];
    for (const [name, data, status] of writes) {
      const { answer, mostRead, wholeTable } = await write('PUT', o, data);
      expect(answer.status, `${name}: ${answer.text}`).toBe(status);
      expect(wholeTable, name).toEqual([]);
      expect(mostRead, `${name}: rows read beside 10,000 peers as beside 200`).toBe(costs.get(name));
    }
  });
});
