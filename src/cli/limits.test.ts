import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, spawnTel, TEL_BIN } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';

describe('tel limits get|set', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  let account: string;
  beforeAll(async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    const master = JSON.parse(init.stdout).account_id;
    account = JSON.parse((await runTel(['accounts', 'create', 'Customer', '--parent', master, '--db', db, '--json'])).stdout).id;
    const rates = await runTel(['config', 'set', 'services', 'limits', '{"inbound_trunks":{"rate":6.99}}', '--db', db]);
    expect(rates.code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  const get = async () => JSON.parse((await runTel(['limits', 'get', '--account', account, '--db', db, '--json'])).stdout);

  it('get answers the defaults of an account without limits', async () => {
    expect(await get()).toEqual({ id: 'limits', allow_prepay: true, authz_resource_types: [] });
    const human = await runTel(['limits', 'get', '--account', account, '--db', db]);
    expect(human.stdout).toMatch(/allow_prepay: true/);
  });

  it('a free change applies without asking', async () => {
    const r = await runTel(['limits', 'set', '--account', account, '--outbound-trunks', '5', '--no-allow-prepay', '--db', db]);
    expect(r.code).toBe(0);
    expect(await get()).toEqual({ id: 'limits', allow_prepay: false, authz_resource_types: [], outbound_trunks: 5 });
  });

  it('off a terminal, a charged change without --accept-charges prints the charges and exits 1, storing nothing', async () => {
    const r = await runTel(['limits', 'set', '--account', account, '--inbound-trunks', '11', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/inbound_trunks\s+11\s+6\.99\s+76\.89/);
    expect(r.stderr).toMatch(/--accept-charges/);
    expect((await get()).inbound_trunks).toBeUndefined();
    const json = await runTel(['limits', 'set', '--account', account, '--inbound-trunks', '11', '--db', db, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).limits.inbound_trunks).toMatchObject({ category: 'limits', quantity: 11, rate: 6.99 });
  });

  it('on a terminal it asks: "n" cancels (exit 1), "y" applies', async () => {
    const no = await runTel(['limits', 'set', '--account', account, '--inbound-trunks', '11', '--db', db], { isTTY: true, stdin: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(/Accept these charges\? \[y\/N\]/);
    expect((await get()).inbound_trunks).toBeUndefined();
    const yes = await runTel(['limits', 'set', '--account', account, '--inbound-trunks', '11', '--db', db], { isTTY: true, stdin: 'y\n' });
    expect(yes.code).toBe(0);
    expect((await get()).inbound_trunks).toBe(11);
  });

  // util-linux `script` gives the real binary a terminal for stdout while stdin is empty.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('on a terminal with nothing to read, the question is answered no: exit 1, nothing stored', async () => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const cmd = [process.execPath, TEL_BIN, 'limits', 'set', '--account', account, '--inbound-trunks', '40', '--db', db].map(quote).join(' ');
    const r = spawnSync('script', ['-qec', `${cmd} < /dev/null; echo "exit=$?"`, '/dev/null'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout).toMatch(/Accept these charges\? \[y\/N\]/);
    expect(r.stdout).toMatch(/Cancelled: the charges were not accepted/);
    expect(r.stdout).toMatch(/exit=1\b/);
    expect(r.stdout).not.toMatch(/unsettled/);
    expect((await get()).inbound_trunks).toBe(11);
  });

  it('--accept-charges applies; the real binary refuses without it and takes --data', async () => {
    const refused = await spawnTel(['limits', 'set', '--account', account, '--data', '{"inbound_trunks":12}', '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/inbound_trunks/);
    const ok = await spawnTel(['limits', 'set', '--account', account, '--data', '{"inbound_trunks":12}', '--accept-charges', '--db', db, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ inbound_trunks: 12, outbound_trunks: 5 });
  });

  it('usage errors exit 2; a bad value is refused with exit 1 naming the field', async () => {
    expect((await runTel(['limits', 'set', '--account', account, '--db', db])).code).toBe(2);
    expect((await runTel(['limits', 'set', '--account', account, '--calls', '-3', '--db', db])).code).toBe(2);
    const bad = await runTel(['limits', 'set', '--account', account, '--data', '{"calls":"many"}', '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/calls/);
    const help = await runTel(['limits', '--help']);
    expect(help.stdout).toMatch(/Examples:/);
  });
});
