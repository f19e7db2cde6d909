import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { runTel } from '../../../test/helpers/cli.js';

describe('tel webhooks … on the database file, beside a running server', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let child: string;
  const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile]);
  const on = (path: string) => (r: SinkRequest) => r.path === path;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    sink.respond((r) => ({ status: r.path === '/broken' ? 500 : 200 }));
    account = (await createSubAccount(srv, srv.master.account_id, 'Cli Hooks')).id;
    child = (await createSubAccount(srv, account, 'Cli Child')).id;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('create, list, show, disable, enable, delete', async () => {
    const created = await tel('webhooks', 'create', '--account', account, '--name', 'CRM', '--uri', `${sink.url}/crm`, '--hook', 'channel_create', '--format', 'json', '--json');
    expect(created.code, created.stderr).toBe(0);
    const hook = JSON.parse(created.stdout);
    expect(hook).toMatchObject({ name: 'CRM', http_verb: 'post', format: 'json', retries: 2, enabled: true });
    const list = await tel('webhooks', 'list', '--account', account);
    expect(list.stdout).toMatch(/ID\s+NAME\s+HOOK\s+URI/);
    expect(list.stdout).toContain(hook.id);
    const show = await tel('webhooks', 'show', hook.id, '--account', account);
    expect(JSON.parse(show.stdout).uri).toBe(`${sink.url}/crm`);
    const off = await tel('webhooks', 'disable', hook.id, '--account', account);
    expect(off.stdout).toContain('is disabled');
    const api = await srv.request('GET', `/v2/accounts/${account}/webhooks/${hook.id}`, { token: srv.adminToken });
    expect(api.body.data.enabled).toBe(false);
    expect((await tel('webhooks', 'enable', hook.id, '--account', account)).stdout).toContain('is enabled');
    const del = await tel('webhooks', 'delete', hook.id, '--account', account);
    expect(del.code).toBe(0);
    expect((await tel('webhooks', 'show', hook.id, '--account', account)).code).toBe(1);
  });

  it('update changes the fields given (the account by name) and keeps the others; nothing given is a usage error', async () => {
    const created = await tel('webhooks', 'create', '--account', account, '--name', 'CRM', '--uri', `${sink.url}/crm`, '--hook', 'channel_create', '--retries', '1', '--json');
    const id = JSON.parse(created.stdout).id;
    const r = await tel('webhooks', 'update', id, '--account', 'Cli Hooks', '--name', 'CRM staging', '--uri', `${sink.url}/staging`, '--data', '{"custom_data":{"env":"staging"}}');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Updated webhook CRM staging (${id}): custom_data, name, uri.\n`);
    const api = await srv.request('GET', `/v2/accounts/${account}/webhooks/${id}`, { token: srv.adminToken });
    expect(api.body.data).toMatchObject({ name: 'CRM staging', uri: `${sink.url}/staging`, hook: 'channel_create', retries: 1, custom_data: { env: 'staging' } });
    const nothing = await tel('webhooks', 'update', id, '--account', account);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^Nothing to change/);
    const bad = await tel('webhooks', 'update', id, '--account', account, '--uri', 'not a uri');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Refused: uri: /);
    expect((await tel('webhooks', 'delete', id, '--account', account)).code).toBe(0);
  });

  it('refuses bad input with one sentence and exit 1 (2 for usage)', async () => {
    const bad = await tel('webhooks', 'create', '--account', account, '--name', 'X', '--uri', 'not a uri', '--hook', 'object', '--data', '{"retries":9}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Refused: .*uri.*retries|^Refused: .*retries.*uri/);
    // A value outside an option's fixed set is a usage error that lists the allowed ones.
    const type = await tel('webhooks', 'create', '--account', account, '--name', 'X', '--uri', 'http://127.0.0.1:9/x', '--hook', 'nope');
    expect(type.code).toBe(2);
    expect(type.stderr).toMatch(/--hook .*channel_create/);
    // simulate names the unknown account and the option, like every --account command
    for (const args of [
      ['simulate', 'call', '--account', 'nope'],
      ['simulate', 'parking', '--account', 'nope', '--slot', '1'],
      ['simulate', 'queue-call', '--account', 'nope', '--queue', 'q', '--agent', 'a'],
    ]) {
      const r = await tel(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/^No account "nope" \(--account\) in .+: give an account's id, name or realm \(tel accounts list\)\.\n$/);
    }
    expect((await tel('webhooks', 'list')).code).toBe(2);
    expect((await tel('webhooks', 'resend', 'abc')).code).toBe(2);
  });

  it('attempts shows the log the server wrote; resend sends the same event again', async () => {
    const created = await tel('webhooks', 'create', '--account', account, '--name', 'Destroy', '--uri', `${sink.url}/destroy`, '--hook', 'channel_destroy', '--json');
    const hookId = JSON.parse(created.stdout).id;
    const sim = await tel('simulate', 'call', '--account', account, '--no-answer');
    expect(sim.code, sim.stderr).toBe(0);
    expect(sim.stdout).toMatch(/channel_destroy\s+call_id=/);
    const [first] = await sink.waitFor(1, { filter: on('/destroy'), timeoutMs: 3000 });
    let attempts: any[] = [];
    for (let i = 0; i < 100 && attempts.length === 0; i++) {
      attempts = JSON.parse((await tel('webhooks', 'attempts', '--account', account, '--hook', hookId, '--json')).stdout);
      if (attempts.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(attempts[0]).toMatchObject({ hook_id: hookId, result: 'success', method: 'post', resp_status_code: '200' });
    const human = await tel('webhooks', 'attempts', '--account', account);
    expect(human.stdout).toMatch(/RESULT\s+STATUS\s+MS/);
    expect(human.stdout).toContain('success');
    const resent = await tel('webhooks', 'resend', String(attempts[0].id));
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toMatch(/Queued delivery \d+/);
    const both = await sink.waitFor(2, { filter: on('/destroy'), timeoutMs: 3000 });
    expect(both[1].headers['x-event-id']).toBe(first.headers['x-event-id']);
    expect(both[1].body).toBe(first.body);
    expect((await tel('webhooks', 'resend', String(attempts[0].id), '--account', child)).code).toBe(1);
  });

  it('reenable --descendants turns auto-disabled hooks back on, in a child and a grandchild', async () => {
    const grandchild = (await createSubAccount(srv, child, 'Cli Grandchild')).id;
    const hooks: [string, string][] = [];
    for (const a of [child, grandchild]) {
      await srv.request('POST', `/v2/accounts/${a}/configs/webhooks`, { token: srv.adminToken, data: { attempt_failure_count: 1 } });
      const created = await tel('webhooks', 'create', '--account', a, '--name', 'Broken', '--uri', `${sink.url}/broken`, '--hook', 'parking', '--retries', '0', '--json');
      hooks.push([a, JSON.parse(created.stdout).id]);
      await tel('simulate', 'parking', '--account', a, '--slot', '3');
    }
    for (const [a, hookId] of hooks) {
      let row: any;
      for (let i = 0; i < 100; i++) {
        row = JSON.parse((await tel('webhooks', 'list', '--account', a, '--json')).stdout).find((h: any) => h.id === hookId);
        if (!row.enabled) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(row.disable_reason).toMatch(/too many failed deliveries/);
    }
    const r = await tel('webhooks', 'reenable', '--account', account, '--descendants');
    expect(r.stdout).toBe('Re-enabled 2 webhooks.\n');
    for (const [a, hookId] of hooks) {
      const after = JSON.parse((await tel('webhooks', 'show', hookId, '--account', a)).stdout);
      expect(after.enabled).toBe(true);
      expect(after).not.toHaveProperty('disable_reason');
    }
  });
});
