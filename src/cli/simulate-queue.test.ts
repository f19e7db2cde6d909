import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../core.js';
import { insertDoc } from '../modules/documents/store.js';
import { createUser } from '../modules/users/service.js';
import { createSubscription } from '../modules/push/service.js';
import { pushesPage } from '../modules/push/pushes.js';
import { runTel } from '../../test/helpers/cli.js';
import { startTestServer, tempDir } from '../../test/helpers/server.js';
import { startSink } from '../../test/helpers/sink.js';

describe('tel simulate voicemail', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let account: string;
  let box: string;
  let device: string;
  beforeAll(async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    const master = JSON.parse(init.stdout).account_id;
    account = JSON.parse((await runTel(['accounts', 'create', 'Customer', '--parent', master, '--db', db, '--json'])).stdout).id;
    const core = openCore(db);
    try {
      const owner = createUser(core, account, { username: 'vm-owner', password: 'pw', first_name: 'F', last_name: 'L' });
      device = insertDoc(core, 'device', account, { name: 'Phone', owner_id: owner.id }).id;
      box = insertDoc(core, 'vmbox', account, { name: 'Box', mailbox: '100', owner_id: owner.id }).id;
      createSubscription(core, account, 'lab.app', device, {
        mobile_device_id: 'm1',
        notification_registration_id: 'tok',
        notification_type: 'fcm',
      });
    } finally {
      closeCore(core);
    }
  });
  afterAll(() => tmp.cleanup());

  it('prints the new_voicemail event and records the push in the outbox', async () => {
    const r = await runTel(['simulate', 'voicemail', '--account', account, '--vmbox', box, '--caller-id-name', 'Bob', '--db', db, '--json']);
    expect(r.code).toBe(0);
    const { events } = JSON.parse(r.stdout);
    expect(events[0]).toMatchObject({ event: 'notifications', event_name: 'voicemail_new', voicemail_box: box });
    expect(events[1]).toMatchObject({ event: 'new_voicemail', vmbox_id: box, caller_id_name: 'Bob' });
    expect(events[1].pushes).toEqual([expect.objectContaining({ device_id: device, app_name: 'lab.app' })]);
    const human = await runTel(['simulate', 'voicemail', '--account', account, '--vmbox', box, '--db', db]);
    expect(human.stdout).toMatch(/^notifications.*\nnew_voicemail/);
    const core = openCore(db);
    try {
      expect(pushesPage(core, account, {}).items).toHaveLength(2);
    } finally {
      closeCore(core);
    }
  });

  it('an unknown box is refused with exit 1; a missing --vmbox is a usage error', async () => {
    const r = await runTel(['simulate', 'voicemail', '--account', account, '--vmbox', 'd'.repeat(32), '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Not found/);
    expect((await runTel(['simulate', 'voicemail', '--account', account, '--db', db])).code).toBe(2);
  });
});

describe('tel simulate queue-call beside a running server', () => {
  it('queues the notifications offline; the server sends them to the queue URL', async () => {
    const srv = await startTestServer();
    const sink = await startSink();
    try {
      const token = srv.adminToken;
      const account = srv.master.account_id;
      const agent = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { username: 'agent.k', password: 'pw', first_name: 'F', last_name: 'L' } })).body.data.id;
      const queue = (
        await srv.request('PUT', `/v2/accounts/${account}/queues`, { token, data: { name: 'Sales', notifications: { all: `${sink.url}/cli`, method: 'post' } } })
      ).body.data.id;
      const r = await runTel(['simulate', 'queue-call', '--account', account, '--queue', queue, '--agent', agent, '--caller-id-number', '+15550001', '--db', srv.dbFile, '--json']);
      expect(r.code).toBe(0);
      const { events } = JSON.parse(r.stdout);
      expect(events.map((e: { event: string }) => e.event)).toEqual(['pickup', 'hangup']);
      const got = await sink.waitFor(2, { filter: (q) => q.path === '/cli' });
      expect(got.map((q) => JSON.parse(q.body).call_state).sort()).toEqual(['hangup', 'pickup']);
      expect(JSON.parse(got[0].body)).toMatchObject({ agent_username: 'agent.k', caller_id_number: '+15550001', queue_id: queue });
      const human = await runTel(['simulate', 'queue-call', '--account', account, '--queue', queue, '--agent', agent, '--db', srv.dbFile]);
      expect(human.stdout.split('\n').filter(Boolean).map((l) => l.split(' ')[0])).toEqual(['pickup', 'hangup']);
      expect((await runTel(['simulate', 'queue-call', '--account', account, '--queue', queue, '--db', srv.dbFile])).code).toBe(2);
    } finally {
      await srv.close();
      await sink.close();
    }
  });
});
