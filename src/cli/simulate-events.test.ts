import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../core.js';
import { insertDoc } from '../modules/documents/store.js';
import { createUser } from '../modules/users/service.js';
import { createResource } from '../modules/resources/service.js';
import { runTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';

describe('tel simulate call --device/--user/--resource, sms, mms, notification, object', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let master: string;
  let account: string;
  let user: string;
  let device: string;
  let resource: string;
  const tel = (...args: string[]) => runTel([...args, '--db', db]);

  beforeAll(async () => {
    master = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).stdout).account_id;
    account = JSON.parse((await tel('accounts', 'create', 'Customer', '--parent', master, '--json')).stdout).id;
    const core = openCore(db);
    try {
      user = createUser(core, account, { username: 'ada', password: 'pw', first_name: 'Ada', last_name: 'Lovelace' }).id;
      device = insertDoc(core, 'device', account, { name: 'Phone', owner_id: user }).id;
      resource = createResource(core, { accountId: account }, { name: 'Carrier', gateways: [] }).id;
    } finally {
      closeCore(core);
    }
  });
  afterAll(() => tmp.cleanup());

  it('a call from a device names it, its owner, the carrier and the reseller', async () => {
    const r = await tel('simulate', 'call', '--account', account, '--direction', 'outbound', '--device', device, '--resource', resource, '--json');
    expect(r.code, r.stderr).toBe(0);
    for (const e of JSON.parse(r.stdout).events) {
      expect(e).toMatchObject({ authorizing_id: device, authorizing_type: 'device', owner_id: user, local_resource_id: resource, reseller_id: master });
    }
    const byUser = await tel('simulate', 'call', '--account', account, '--user', user, '--no-answer', '--json');
    expect(JSON.parse(byUser.stdout).events[0]).toMatchObject({ authorizing_id: user, authorizing_type: 'user', owner_id: user });
    const unknown = await tel('simulate', 'call', '--account', account, '--device', 'f'.repeat(32));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Not found: f{32}/);
  });

  it('sms and mms print their event; a bad --charges is a usage error', async () => {
    const sms = await tel('simulate', 'sms', '--account', account, '--from', '+442071838750', '--body', 'hi', '--charges', '0.01', '--json');
    expect(sms.code, sms.stderr).toBe(0);
    expect(JSON.parse(sms.stdout).events).toEqual([
      expect.objectContaining({ event: 'sms', type: 'sms', from: '+442071838750', body: 'hi', charges: 0.01, origin: 'offnet', account_id: account }),
    ]);
    const mms = await tel('simulate', 'mms', '--account', account);
    expect(mms.stdout.trim()).toBe('mms');
    expect((await tel('simulate', 'sms', '--account', account, '--charges', 'free')).code).toBe(2);
  });

  it('notification takes its fields as JSON; object fires a change without one', async () => {
    const n = await tel('simulate', 'notification', '--account', account, '--event', 'low_balance', '--fields', '{"current_balance": 2.5}', '--json');
    expect(n.code, n.stderr).toBe(0);
    expect(JSON.parse(n.stdout).events[0]).toMatchObject({ event: 'notifications', event_name: 'low_balance', current_balance: 2.5 });
    expect((await tel('simulate', 'notification', '--account', account, '--event', 'nope')).code).toBe(2);
    const bad = await tel('simulate', 'notification', '--account', account, '--event', 'new_user', '--fields', '{"colour": "red"}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/fields\.colour/);
    const o = await tel('simulate', 'object', '--account', account, '--type', 'user', '--action', 'doc_created', '--id', user, '--json');
    expect(JSON.parse(o.stdout).events).toEqual([{ event: 'object', id: user, account_id: account, action: 'doc_created', type: 'user' }]);
  });
});
