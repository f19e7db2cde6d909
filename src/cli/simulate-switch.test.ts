import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../core.js';
import { insertDoc } from '../modules/documents/store.js';
import { runTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';

describe('tel simulate call --no-hangup, hangup, fax, subscribe', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let account: string;
  let device: string;
  const tel = (...args: string[]) => runTel([...args, '--db', db]);
  const events = (stdout: string) => JSON.parse(stdout).events as Record<string, any>[];

  beforeAll(async () => {
    const master = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).stdout).account_id;
    account = JSON.parse((await tel('accounts', 'create', 'Customer', '--parent', master, '--json')).stdout).id;
    const core = openCore(db);
    try {
      device = insertDoc(core, 'device', account, { name: 'Phone', sip: { username: 'phone' } }).id;
    } finally {
      closeCore(core);
    }
  });
  afterAll(() => tmp.cleanup());

  it('a call kept up ends with tel simulate hangup, its cause in channel_destroy; an unknown call is refused', async () => {
    const up = await tel('simulate', 'call', '--account', account, '--device', device, '--no-hangup', '--record', '--json');
    expect(up.code, up.stderr).toBe(0);
    expect(events(up.stdout).map((e) => e.event)).toEqual(['channel_create', 'channel_answer', 'channel_bridge']);
    const down = await tel('simulate', 'hangup', '--account', account, '--call-id', events(up.stdout)[0].call_id, '--hangup-cause', 'USER_BUSY', '--json');
    expect(events(down.stdout)).toEqual([expect.objectContaining({ event: 'channel_destroy', hangup_cause: 'USER_BUSY', hangup_code: 'sip:486' })]);
    const gone = await tel('simulate', 'hangup', '--account', account, '--call-id', events(up.stdout)[0].call_id);
    expect(gone.code).toBe(1);
  });

  it('a fax arrives; the fax server has nothing queued to send; a phone subscribes', async () => {
    const inbound = await tel('simulate', 'fax', '--account', account, '--from', '+442071838750', '--pages', '2', '--json');
    expect(inbound.code, inbound.stderr).toBe(0);
    expect(events(inbound.stdout).map((e) => e.event_name ?? e.event)).toEqual(['fax', 'inbound_fax']);
    const nothing = await tel('simulate', 'fax', '--account', account, '--direction', 'outbound');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/No fax job of the account is pending/);
    expect((await tel('simulate', 'fax', '--account', account, '--pages', 'many')).code).toBe(2);
    const sub = await tel('simulate', 'subscribe', '--account', account, '--device', device, '--to', '1001', '--json');
    expect(events(sub.stdout)).toEqual([expect.objectContaining({ event: 'subscribe', presentity: '1001', package: 'dialog', from: expect.stringMatching(/^phone@/) })]);
  });
});
