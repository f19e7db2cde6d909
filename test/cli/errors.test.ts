import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runTel, spawnTel } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

/** One sentence on stderr: one line, no stack frame. */
function expectOneSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\bat .*:\d+:\d+/);
}

describe('tel errors: exit codes and one clear sentence', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let master: string;
  beforeAll(async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    master = JSON.parse(init.stdout).account_id;
  });
  afterAll(() => tmp.cleanup());

  test('a mistyped option or command is named with the likely spelling, before a required option it leaves missing (exit 2)', async () => {
    for (const [args, sentence] of [
      [['webhooks', 'list', '--acount', master], "Unknown option '--acount': did you mean --account? (see --help)."],
      [['tokens', 'create', '--acount=Lab'], "Unknown option '--acount': did you mean --account? (see --help)."],
      [['accounts', 'list', '--undr', 'Lab'], "Unknown option '--undr': did you mean --under? (see --help)."],
      [['webhooks', 'lst', '--account', 'Lab'], "Unknown command 'lst': did you mean list? (see --help)."],
    ] as const) {
      const r = await runTel([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`${sentence}\n`);
    }
    // without a typo, the required option is what is missing
    expect((await runTel(['webhooks', 'list', '--db', db])).stderr).toBe("Required option '--account <account>' not specified (see --help).\n");
  });

  test('a file that is not a database, or cannot be opened, is named in the sentence (exit 1)', async () => {
    const garbage = join(tmp.dir, 'garbage.db');
    writeFileSync(garbage, 'this is not SQLite, but it is long enough to have a header of sorts.\n'.repeat(10));
    const dir = join(tmp.dir, 'a-directory');
    mkdirSync(dir);
    for (const args of [
      ['accounts', 'list', '--db', garbage],
      ['init', '--db', garbage, '--account', 'A', '--username', 'u', '--password', 'p'],
      ['watch', '--once', '--db', garbage],
      ['serve', '--port', '0', '--db', garbage],
      ['accounts', 'list', '--db', dir],
      ['init', '--db', join(tmp.dir, 'no-such-dir', 'x.db'), '--account', 'A', '--username', 'u', '--password', 'p'],
    ]) {
      const r = await runTel(args);
      expect(r.code, args.join(' ')).toBe(1);
      expectOneSentence(r.stderr);
      expect(r.stderr, args.join(' ')).toMatch(/^Cannot open the database .+: .+\.$/m);
    }
  });

  test('an unknown account given as an option is refused, not an empty list (exit 1)', async () => {
    for (const args of [
      ['accounts', 'list', '--under', 'nope'],
      ['tokens', 'list', '--account', 'nope'],
      ['jobs', 'list', '--account', 'nope'],
      ['webhooks', 'list', '--account', 'nope'],
      ['webhooks', 'attempts', '--account', 'nope'],
      ['webhooks', 'reenable', '--account', 'nope'],
      ['webhooks', 'create', '--account', 'nope', '--name', 'x', '--uri', 'http://127.0.0.1:9/x', '--hook', 'object'],
      ['webhooks', 'resend', '1', '--account', 'nope'],
    ]) {
      const r = await runTel([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(1);
      expectOneSentence(r.stderr);
      expect(r.stderr).toMatch(/nope/);
    }
    const file = new DatabaseSync(db, { timeout: 5000 });
    expect(file.prepare('SELECT count(*) AS n FROM webhooks').get()).toEqual({ n: 0 });
    file.close();
  });

  test('option values of the wrong kind are usage errors (exit 2) that name the option', async () => {
    for (const args of [
      ['resources', 'create', 'X', '--gateway', 'sip.example.net', '--weight-cost', 'abc'],
      ['webhooks', 'create', '--account', master, '--name', 'x', '--uri', 'http://127.0.0.1:9/x', '--hook', 'object', '--retries', 'abc'],
      ['webhooks', 'create', '--account', master, '--name', 'x', '--uri', 'http://127.0.0.1:9/x', '--hook', 'object', '--verb', 'fetch'],
      ['simulate', 'call', '--account', master, '--hangup-cause', 'LUNCH'],
      ['simulate', 'call', '--account', master, '--direction', 'sideways'],
      ['simulate', 'parking', '--account', master, '--slot', '7', '--outcome', 'lost'],
      ['serve', '--port', ''],
      ['serve', '--port', '70000'],
    ]) {
      const r = await runTel([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(/--(weight-cost|retries|verb|hangup-cause|direction|outcome|port)/);
      expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    }
    // Nothing was stored by the refused commands.
    const hooks = await runTel(['webhooks', 'list', '--account', master, '--db', db, '--json']);
    expect(JSON.parse(hooks.stdout)).toEqual([]);
  });

  test('- reads stdin in the real process, not only in tests', async () => {
    const template = '{"cb_api_auth":{"_":{"devices":[{"rules":{"#":["GET"]}}]}}}';
    const set = await spawnTel(['restrictions', 'set', '--account', master, '-', '--db', db], { stdin: template });
    expect(set.code, set.stderr).toBe(0);
    const got = await runTel(['restrictions', 'get', '--account', master, '--db', db, '--json']);
    expect(JSON.parse(got.stdout)).toEqual({ restrictions: JSON.parse(template) });
  });

  test('an option whose value is missing (an empty shell variable) does not take the next option as its value', async () => {
    // As `--account $ACCOUNT --gateway …` reads when ACCOUNT is empty.
    const r = await runTel(['resources', 'create', 'Carrier A', '--account', '--gateway', 'sip.example.net', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/--account .*--gateway/);
    const json = await runTel(['webhooks', 'list', '--account', '--json', '--db', db]);
    expect(json.code).toBe(2);
    expect(json.stderr.split('\n')[0]).toMatch(/--account .*(--json|missing)/);
  });

  test('a numbers file that starts as a JSON array but is not one is a usage error naming the file', async () => {
    const file = join(tmp.dir, 'numbers.json');
    writeFileSync(file, '["+14155550100", "+1415555');
    const r = await runTel(['jobs', 'create', '--resource', 'f'.repeat(32), '--numbers', file, '--db', db]);
    expect(r.code).toBe(2);
    expectOneSentence(r.stderr);
    expect(r.stderr).toMatch(/numbers\.json is not a valid JSON array/);
  });
});
