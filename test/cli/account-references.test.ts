import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

describe('every account option takes an id, a name or a realm', () => {
  const tmp = tempDir('tel-account-refs-');
  const db = join(tmp.dir, 'lab.db');
  const tel = (...args: string[]) => runTel([...args, '--db', db]);
  let master: string;
  let customer: string;

  beforeAll(async () => {
    master = JSON.parse((await tel('init', '--account', 'Lab', '--username', 'admin', '--password', 's3cret')).stdout).account_id;
    const created = await tel('accounts', 'create', 'Customer A', '--parent', 'Lab', '--realm', 'a.lab.example', '--json');
    expect(created.code, created.stderr).toBe(0);
    customer = JSON.parse(created.stdout).id;
  });
  afterAll(() => tmp.cleanup());

  it('a name (letter case, spaces and punctuation aside) or a realm finds the account, wherever an account is asked', async () => {
    expect(JSON.parse((await tel('accounts', 'show', 'customer-a', '--json')).stdout).id).toBe(customer);
    expect(JSON.parse((await tel('accounts', 'show', 'A.LAB.EXAMPLE', '--json')).stdout).id).toBe(customer);
    const hook = await tel('webhooks', 'create', '--account', 'Customer A', '--name', 'CRM', '--uri', 'http://127.0.0.1:9/x', '--hook', 'channel_create', '--json');
    expect(hook.code, hook.stderr).toBe(0);
    expect(JSON.parse((await tel('webhooks', 'list', '--account', 'a.lab.example', '--json')).stdout).map((h: { name: string }) => h.name)).toEqual(['CRM']);
    const token = await tel('tokens', 'create', '--account', 'Customer A', '--json');
    expect(JSON.parse(token.stdout).account_id).toBe(customer);
    expect((await tel('limits', 'get', '--account', 'Customer A')).code).toBe(0);
    expect((await tel('restrictions', 'get', '--account', 'Customer A')).stderr).toBe('Not found: token_restrictions.\n'); // found, without a template
    expect((await tel('config', 'set', 'webhooks', 'attempt_failure_count', '3', '--account', 'Customer A')).code).toBe(0);
    const call = await tel('simulate', 'call', '--account', 'Customer A', '--json');
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse((await tel('accounts', 'list', '--under', 'Lab', '--json')).stdout).map((a: { id: string }) => a.id)).toEqual([customer]);
    expect((await tel('accounts', 'create', 'Sub', '--parent', 'Customer A')).stdout).toMatch(/ under Customer A \([0-9a-f]{32}\)\.$/m);
    expect(JSON.parse((await tel('accounts', 'show', 'Sub', '--json')).stdout).tree).toEqual([master, customer]);
    expect((await tel('accounts', 'move', 'Sub', '--to', 'Lab')).stdout).toMatch(/^Moved Sub \([0-9a-f]{32}\) under Lab \([0-9a-f]{32}\)\.$/m);
    expect((await tel('accounts', 'delete', 'sub')).code).toBe(0);
  });

  it('an account that does not exist is one sentence saying what is taken (exit 1)', async () => {
    const r = await tel('webhooks', 'list', '--account', 'Customer Z');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`No account "Customer Z" (--account) in ${db}: give an account's id, name or realm (tel accounts list).\n`);
  });

  it('accounts update changes the fields given and keeps the others', async () => {
    const r = await tel('accounts', 'update', 'Customer A', '--name', 'Customer Alpha', '--data', '{"timezone":"Europe/London"}', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: customer, name: 'Customer Alpha', realm: 'a.lab.example', timezone: 'Europe/London' });
    expect((await tel('accounts', 'update', 'Customer Alpha', '--realm', 'alpha.lab.example')).stdout).toBe(`Updated account Customer Alpha (${customer}): realm.\n`);
    const nothing = await tel('accounts', 'update', 'Customer Alpha');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^Nothing to change/);
    const taken = await tel('accounts', 'update', 'Customer Alpha', '--name', 'Lab');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/name: Account name already in use/);
  });
  it('a name that may mean several accounts is refused, listing them (exit 2)', async () => {
    // tel refuses a name another account has; a database written before it did may hold two
    const other = JSON.parse((await tel('accounts', 'create', 'Customer B', '--parent', master, '--realm', 'b.lab.example', '--json')).stdout).id;
    const older = new DatabaseSync(db, { timeout: 5000 });
    older.prepare("UPDATE accounts SET name = 'Customer-Alpha', name_norm = 'customeralpha' WHERE id = ?").run(other);
    older.close();
    const r = await tel('webhooks', 'list', '--account', 'customer alpha');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"customer alpha" (--account) may mean 2 accounts: ');
    expect(r.stderr).toContain(`${customer} (Customer Alpha, realm alpha.lab.example)`);
    expect(r.stderr).toContain(`${other} (Customer-Alpha, realm b.lab.example)`);
    expect(r.stderr).toMatch(/Give the id or the realm of one\.\n$/);
    expect(JSON.parse((await tel('accounts', 'show', 'b.lab.example', '--json')).stdout).id).toBe(other);
    expect(JSON.parse((await tel('accounts', 'show', other, '--json')).stdout).id).toBe(other);
  });

});
