import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DatabaseSync } from 'node:sqlite';
import { runTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';
import { closeCore, openCore } from '../core.js';
import { listAccounts } from '../modules/accounts/service.js';
import { activateNumber } from '../modules/numbers/lifecycle.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/lab.yaml', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('tel-lab-');
});
afterEach(() => tmp.cleanup());

const db = (name: string) => join(tmp.dir, `${name}.db`);
const file = (name: string, text: string) => {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
};

/** Every row of every table but the bookkeeping ones, as text: what "nothing was written" compares. */
function snapshot(path: string): string {
  const conn = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  try {
    const tables = (conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    return JSON.stringify(tables.map((t) => [t, conn.prepare(`SELECT * FROM "${t}"`).all().map((r) => JSON.stringify(r)).sort()]));
  } finally {
    conn.close();
  }
}

async function apply(dbFile: string, lab: string, ...flags: string[]) {
  return runTel(['apply', lab, '--db', dbFile, ...flags]);
}

async function exported(dbFile: string, ...flags: string[]): Promise<string> {
  const r = await runTel(['export', '--db', dbFile, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('tel apply and tel export: labs as code', () => {
  it('docs/labs.md shows examples/lab.yaml as it is', () => {
    const page = readFileSync(fileURLToPath(new URL('../../docs/labs.md', import.meta.url)), 'utf8');
    const shown = /`examples\/lab\.yaml`[^\n]*\n\n```yaml\n([\s\S]*?)```/.exec(page);
    expect(shown?.[1]).toBe(readFileSync(EXAMPLE, 'utf8'));
  });

  it('the example lab builds every kind, and export → apply on an empty database → export gives the same file', async () => {
    const first = await apply(db('a'), EXAMPLE);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\+ create account Lab$/m);
    expect(first.stdout).toMatch(/Applied in [\d.]+ ms, one transaction: 23 created, 0 changed, 0 removed\./);

    const masked = await exported(db('a'));
    const lab = parse(masked);
    // every kind of the lab format is in the example, and comes back out
    expect(Object.keys(lab.system).sort()).toEqual(['configs', 'resources', 'token_restrictions']);
    expect(Object.keys(lab.system.configs).sort()).toEqual(['crossbar.auth', 'services', 'webhooks']);
    const customer = lab.account.children[0];
    expect(customer.name).toBe('Customer A');
    for (const key of ['api_key', 'token_restrictions', 'limits', 'configs', 'users', 'devices', 'vmboxes', 'queues', 'resources', 'webhooks', 'push_subscriptions', 'children']) {
      expect(customer, key).toHaveProperty(key);
    }
    expect(customer.token_restrictions.cb_api_auth._.devices[0].allowed_accounts).toEqual(['{{accounts.Customer A.id}}']);
    expect(customer.devices[0].owner_id).toBe('{{users.alice.id}}');
    expect(customer.webhooks.find((h: { name: string }) => h.name === 'CRM').secret).toBe('********');
    expect(lab.account.api_key).toBe('********');
    expect(customer.users.map((u: { username: string }) => u.username)).toEqual(['alice', 'bob']);
    expect(masked).not.toContain('alice-pass');
    expect(masked).not.toContain('s3cret');

    const copy = file('masked.yaml', masked);
    const second = await apply(db('b'), copy);
    expect(second.code, second.stderr).toBe(0);
    // users had no password in the file: generated ones are shown once
    expect(second.stdout).toMatch(/Generated \(shown once, keep them\):\n(?: {2}.*\n)* {2}Lab\/admin password {2}\S+/);
    expect(second.stdout).toContain('system/Carrier A gateways[0] password');
    expect(await exported(db('b'))).toBe(masked);

    const secret = await exported(db('a'), '--with-secrets');
    expect(secret).toContain('lab-ci-key-0123456789abcdef0123456789abcdef');
    expect(secret).toContain('whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=');
    const third = await apply(db('c'), file('secret.yaml', secret));
    expect(third.code, third.stderr).toBe(0);
    expect(await exported(db('c'), '--with-secrets')).toBe(secret);

    // the references resolved to the new database's ids
    const alice = JSON.parse((await runTel(['accounts', 'list', '--db', db('c'), '--json'])).stdout).find((a: { name: string }) => a.name === 'Customer A');
    const conn = new DatabaseSync(db('c'), { readOnly: true, timeout: 5000 });
    const device = conn.prepare("SELECT doc FROM docs WHERE kind = 'device'").get() as { doc: string };
    const user = conn.prepare("SELECT id FROM docs WHERE kind = 'user' AND json_extract(doc, '$.username') = 'alice'").get() as { id: string };
    const account = conn.prepare('SELECT doc FROM accounts WHERE id = ?').get(alice.id) as { doc: string };
    conn.close();
    expect(JSON.parse(device.doc).owner_id).toBe(user.id);
    expect(JSON.parse(account.doc).restrictions.cb_api_auth._.devices[0].allowed_accounts).toEqual([alice.id]);
  });

  it("what README's and docs/sink.md's examples leave (two hooks named CRM) exports to a file tel apply takes: on a new database and on the same one", async () => {
    expect((await runTel(['init', '--db', db('a'), '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).code).toBe(0);
    const account = JSON.parse((await runTel(['accounts', 'list', '--db', db('a'), '--json'])).stdout)[0].id as string;
    // the pages' own `tel webhooks create` lines, as a reader types them
    const creates = ['README.md', 'docs/sink.md'].flatMap((page) =>
      readFileSync(fileURLToPath(new URL(`../../${page}`, import.meta.url)), 'utf8')
        .replace(/\\\n\s*/g, '')
        .split('\n')
        .filter((line) => line.startsWith('npx tel webhooks create ')),
    );
    expect(creates).toHaveLength(2);
    for (const line of creates) {
      const args = line.replace(/\s+#.*$/, '').replace('$ACCOUNT', account).split(/\s+/).slice(2);
      const r = await runTel([...args, '--db', db('a')]);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    const out = await runTel(['export', '--with-secrets', '--db', db('a')]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/^Note: webhook [0-9a-f]{32} of Lab is written as "CRM \(2\)": an older webhook there is named "CRM" too \(tel apply of the file renames it\)\.\n$/);
    expect(parse(out.stdout).account.webhooks.map((h: { name: string }) => h.name)).toEqual(['CRM', 'CRM (2)']);
    const lab = file('crm.yaml', out.stdout);

    const fresh = await apply(db('b'), lab);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(await exported(db('b'), '--with-secrets')).toBe(out.stdout);

    const same = await apply(db('a'), lab);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).toEqual(['~ change webhook Lab/CRM (2): name']);
    expect((await apply(db('a'), lab)).stdout.trim()).toBe(`No changes: the database already matches ${lab}.`);
    const again = await runTel(['export', '--with-secrets', '--db', db('a')]);
    expect(again).toEqual({ code: 0, stdout: out.stdout, stderr: '' });
  });

  it('applying the same file twice changes nothing and says so', async () => {
    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const before = snapshot(db('a'));
    const again = await apply(db('a'), EXAMPLE);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(`No changes: the database already matches ${EXAMPLE}.`);
    expect(snapshot(db('a'))).toBe(before);
    const json = await apply(db('a'), EXAMPLE, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ changes: [], applied: false });
  });

  it('plans changes with their fields; --dry-run writes nothing, not even a new database file', async () => {
    const fresh = db('never');
    const dry = await apply(fresh, EXAMPLE, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Plan: 23 to create, 0 to change, 0 to remove.');
    expect(dry.stdout).toContain('Dry run: nothing was written.');
    expect(existsSync(fresh)).toBe(false);

    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const before = snapshot(db('a'));
    const edited = readFileSync(EXAMPLE, 'utf8')
      .replace('hook: channel_destroy', 'hook: channel_destroy\n          retries: 4')
      .replace('password: bob-pass', 'password: bob-new-pass')
      .replace('      strategy: most_idle', '      strategy: round_robin');
    const lab = file('edited.yaml', edited);
    const plan = await apply(db('a'), lab, '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).toEqual([
      '~ change user Lab/Customer A/bob: password',
      '~ change queue Lab/Customer A/Support: strategy',
      '~ change webhook Lab/Customer A/CRM: retries',
    ]);
    expect(snapshot(db('a'))).toBe(before);

    const done = await apply(db('a'), lab);
    expect(done.stdout).toMatch(/0 created, 3 changed, 0 removed/);
    expect((await apply(db('a'), lab)).stdout).toMatch(/^No changes/);
  });

  it('removes only with --prune, and only from the lists the file has', async () => {
    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const smaller = readFileSync(EXAMPLE, 'utf8')
      .replace(/ {8}- username: bob\n {10}password: bob-pass\n {10}first_name: Bob\n {10}last_name: Roe\n/, '')
      .replace(/ {6}children:\n {8}- name: Branch office\n(.|\n)*$/, '');
    const lab = file('smaller.yaml', smaller);
    const kept = await apply(db('a'), lab);
    expect(kept.stdout).toMatch(/^No changes/);
    expect(kept.stdout).toContain('1 object of the database not in the file\'s lists kept (--prune removes them): user Lab/Customer A/bob.');
    const pruned = await apply(db('a'), lab, '--prune');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).toEqual(['- remove user Lab/Customer A/bob']);
    // Customer A's `children` list is gone from the file: Branch office is not managed, so it stays
    expect(JSON.parse((await runTel(['accounts', 'list', '--db', db('a'), '--json'])).stdout).map((a: { name: string }) => a.name)).toContain('Branch office');

    const noChildren = file('no-children.yaml', readFileSync(EXAMPLE, 'utf8').replace(/ {6}children:\n {8}- name: Branch office\n(.|\n)*$/, '      children: []\n'));
    const gone = await apply(db('a'), noChildren, '--prune');
    expect(gone.stdout).toContain('- remove account Lab/Customer A/Branch office');
    expect(gone.stdout).toContain('+ create user Lab/Customer A/bob');
  });

  it("an account's settings of any category: applied, exported, pruned; the webhooks category still checked", async () => {
    const lab = (configs: string) =>
      file('configs.yaml', `version: 1\naccount:\n  name: Lab\n  users:\n    - { username: admin, password: pw-admin-1, first_name: Lab, last_name: Admin, priv_level: admin }\n  children:\n    - name: Co\n${configs}`);
    const both = lab('      configs:\n        conferences: { pin_timeout: 3000 }\n        webhooks: { attempt_failure_count: 2 }\n');
    const made = await apply(db('c'), both);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('+ create account config Lab/Co conferences');
    const out = parse(await exported(db('c')));
    expect(out.account.children[0].configs).toEqual({ conferences: { pin_timeout: 3000 }, webhooks: { attempt_failure_count: 2 } });
    expect((await apply(db('c'), both)).stdout).toMatch(/^No changes/);
    const one = lab('      configs:\n        webhooks: { attempt_failure_count: 2 }\n');
    expect((await apply(db('c'), one)).stdout).toContain('account config Lab/Co conferences');
    expect((await apply(db('c'), one, '--prune')).stdout).toContain('- remove account config Lab/Co conferences');
    const bad = await apply(db('c'), lab('      configs:\n        webhooks: { attempt_failure_count: many }\n'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('account.children[0].configs.webhooks.attempt_failure_count');
  });

  it("an account's settings are planned over its reseller's, as stored: the second apply changes nothing", async () => {
    const lab = file(
      'reseller-configs.yaml',
      'version: 1\naccount:\n  name: Lab\n  users:\n    - { username: admin, password: pw-admin-1, first_name: Lab, last_name: Admin, priv_level: admin }\n' +
        '  configs:\n    conferences: { pin_timeout: 3000, profiles: { a: { rate: 8000 } } }\n' +
        '  children:\n    - name: Co\n      configs:\n        conferences: { pin_timeout: 3000, number_timeout: 6000, profiles: { a: { rate: 8000 } } }\n',
    );
    const made = await apply(db('r'), lab);
    expect(made.code, made.stderr).toBe(0);
    // the master is Co's reseller: what Co shares with it is not Co's own
    expect(parse(await exported(db('r'))).account.children[0].configs).toEqual({ conferences: { number_timeout: 6000 } });
    expect((await apply(db('r'), lab)).stdout).toMatch(/^No changes/);
  });

  it('a callflow\'s numbers are planned as the service stores them (E.164): the second apply changes nothing', async () => {
    const lab = file(
      'callflow-numbers.yaml',
      'version: 1\naccount:\n  name: Lab\n  users:\n    - { username: admin, password: pw-admin-1, first_name: Lab, last_name: Admin, priv_level: admin }\n' +
        '  callflows:\n    - { name: Main, numbers: ["4155550100", "1000"] }\n',
    );
    const made = await apply(db('n'), lab);
    expect(made.code, made.stderr).toBe(0);
    expect(parse(await exported(db('n'))).account.callflows[0].numbers).toEqual(['+14155550100', '1000']);
    expect((await apply(db('n'), lab)).stdout).toMatch(/^No changes/);
  });

  it("export --account writes one account's subtree under its parent, as JSON with --json, and it applies where that parent is", async () => {
    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const customer = JSON.parse((await runTel(['accounts', 'list', '--db', db('a'), '--json'])).stdout).find((a: { name: string }) => a.name === 'Customer A');
    const json = await exported(db('a'), '--account', customer.id, '--json', '--with-secrets');
    const lab = JSON.parse(json);
    expect(lab.system).toBeUndefined();
    expect(Object.keys(lab.account).slice(0, 2)).toEqual(['name', 'parent']);
    expect(lab.account).toMatchObject({ name: 'Customer A', parent: 'Lab' });
    const subtree = file('customer-a.json', json);
    expect((await apply(db('a'), subtree)).stdout).toMatch(/^No changes/);

    // another database with a master account named Lab: the subtree goes under it
    expect((await runTel(['init', '--db', db('b'), '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).code).toBe(0);
    const copied = await apply(db('b'), subtree);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toContain('+ create account Customer A/Branch office');
    expect(await exported(db('b'), '--account', JSON.parse((await runTel(['accounts', 'list', '--db', db('b'), '--json'])).stdout).find((a: { name: string }) => a.name === 'Customer A').id, '--json', '--with-secrets')).toBe(json);
    // where no such parent is, it is refused
    expect((await runTel(['init', '--db', db('c'), '--account', 'Elsewhere', '--username', 'admin', '--password', 'pw'])).code).toBe(0);
    const nowhere = await apply(db('c'), subtree);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('account.parent: the database has no account Lab (a path of names from Elsewhere)');
  });

  it('a file that does not validate is refused whole, every problem listed as path: message, exit 2, nothing written', async () => {
    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const before = snapshot(db('a'));
    const broken = file(
      'broken.yaml',
      `version: 1
account:
  name: Lab
  api_key: short
  users:
    - username: admin
      priv_level: boss
      first_name: Lab
      last_name: Admin
    - username: ADMIN
      first_name: Lab
      last_name: Admin
  webhooks:
    - name: W
      uri: not-a-url
      hook: nope
      custom_data: { account: "{{accounts.Nowhere.id}}" }
  children:
    - name: New customer
    - realm: nameless.example
`,
    );
    const r = await apply(db('a'), broken);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'account.api_key: an API key is 32 to 128 letters, digits, _ or - (or ********: keep the key it has, a new account gets one generated)',
      'account.users[0].priv_level: Value not found in enumerated list of values (one of: user, admin)',
      'account.users[1].username: "ADMIN" is also account.users[0]: a username is given once',
      'account.webhooks[0].hook: Value not found in enumerated list of values (one of: channel_create, channel_answer, channel_bridge, channel_destroy, object, sms, mms, parking, notifications)',
      'account.webhooks[0].uri: invalid client URL',
      'account.children[1].name: an account needs a name (its key: accounts are matched by name under their parent)',
      'account.webhooks[0]: {{accounts.Nowhere.id}}: the file declares no accounts "Nowhere"',
      `${broken} does not validate (7 problems): nothing was written.`,
    ]);
    expect(snapshot(db('a'))).toBe(before);

    const yamlError = await apply(db('a'), file('syntax.yaml', 'account:\n  name: [unclosed\n'));
    expect(yamlError.code).toBe(2);
    expect(yamlError.stderr).toMatch(/syntax\.yaml: .+ at line 3, column 1\n/);
  });

  it('refuses (exit 1) a database that does not fit the file, and a failing change rolls everything back', async () => {
    expect((await apply(db('a'), EXAMPLE)).code).toBe(0);
    const master = JSON.parse((await runTel(['accounts', 'list', '--db', db('a'), '--json'])).stdout).find((a: { name: string }) => a.name === 'Lab');
    // tel (as Kazoo) refuses an account name another account has; a database written before it did may hold two
    expect((await runTel(['accounts', 'create', 'Customer B', '--parent', master.id, '--db', db('a')])).code).toBe(0);
    const older = new DatabaseSync(db('a'), { timeout: 5000 });
    older.prepare("UPDATE accounts SET name = 'Customer A', name_norm = 'customera' WHERE name = 'Customer B'").run();
    older.close();
    const ambiguous = await apply(db('a'), EXAMPLE);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('account.children[0]: the database has 2 accounts named "Customer A" under Lab: rename all but one first');

    // a realm another account holds: the service refuses the create, the transaction rolls back
    const other = db('b');
    expect((await runTel(['init', '--db', other, '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).code).toBe(0);
    const lab = JSON.parse((await runTel(['accounts', 'list', '--db', other, '--json'])).stdout)[0];
    expect((await runTel(['accounts', 'create', 'Taken', '--parent', lab.id, '--realm', 'a.lab.example', '--db', other])).code).toBe(0);
    const before = snapshot(other);
    const clash = await apply(other, EXAMPLE);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/^\+ create account Lab\/Customer A failed: Refused: realm: Account realm already in use\. Nothing was applied\./m);
    expect(snapshot(other)).toBe(before);
  });

  it("a pool's numbers: applied, a bought one still the pool's (no change), one left out pruned from the pool", async () => {
    const lab = (numbers: string[]) => file('pool.yaml', `version: 1\naccount:\n  name: Lab\n  children:\n    - name: Shop\n  number_pool:\n${numbers.map((n) => `    - number: "${n}"\n`).join('')}`);
    const first = await apply(db('a'), lab(['+14155550100', '4155550101']));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\+ create pool number Lab\/4155550101$/m);
    const core = openCore(db('a'));
    try {
      const shop = listAccounts(core).find((a) => a.name === 'Shop')!;
      activateNumber(core, { accountId: shop.id, authAccountId: shop.id, isAdmin: false }, '+14155550100', {});
    } finally {
      closeCore(core);
    }
    expect((await apply(db('a'), lab(['+14155550100', '+14155550101']))).stdout.trim()).toMatch(/^No changes/);
    const pruned = await apply(db('a'), lab(['+14155550100']), '--prune');
    expect(pruned.stdout).toMatch(/^- remove pool number Lab\/\+14155550101$/m);
    const pool = await runTel(['numbers', 'pool', 'list', '--db', db('a'), '--json']);
    expect(JSON.parse(pool.stdout)).toEqual([]);
    expect(parse(await exported(db('a'))).account.number_pool).toEqual([{ number: '+14155550100' }]);
  });
});
