import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, spawnTel } from '../../../test/helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { REPLACE_LINE } from '../../jobs/progress.js';

describe('tel resources and tel jobs, offline on the database file', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'tel.db');
  let accountId: string;
  let resourceId: string;
  beforeAll(async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'secret-pass']);
    accountId = JSON.parse(init.stdout).account_id;
    const r = await runTel(['resources', 'create', 'Carrier A', '--db', db, '--account', accountId, '--gateway', 'a.example.net', '--rule', '^\\+1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    resourceId = JSON.parse(r.stdout).id;
  });
  afterAll(() => tmp.cleanup());

  it('resources create fills defaults, list shows it, show prints the document, delete removes it', async () => {
    const shown = await runTel(['resources', 'show', resourceId, '--db', db, '--account', accountId]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'Carrier A', rules: ['^\\+1'], gateways: [{ server: 'a.example.net', port: 5060 }], weight_cost: 50 });
    const g = await runTel(['resources', 'create', 'Global B', '--db', db, '--weight-cost', '10']);
    expect(g.stdout).toMatch(/^Created resource Global B \([0-9a-f]{32}\)\./);
    const list = await runTel(['resources', 'list', '--db', db]);
    expect(list.stdout).toMatch(/Global B\s+true\s+10\s+0/);
    expect(list.stdout).not.toMatch(/Carrier A/);
    const gid = /\(([0-9a-f]{32})\)/.exec(g.stdout)![1];
    const del = await runTel(['resources', 'delete', gid, '--db', db]);
    expect(del.code).toBe(0);
    expect((await runTel(['resources', 'show', gid, '--db', db])).code).toBe(1);
  });

  it('resources update changes the fields given and keeps the others', async () => {
    const r = await runTel(['resources', 'update', resourceId, '--db', db, '--account', 'Lab', '--name', 'Carrier A2', '--gateway', 'b.example.net', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'Carrier A2', rules: ['^\\+1'], gateways: [{ server: 'b.example.net' }], weight_cost: 50 });
    const bad = await runTel(['resources', 'update', resourceId, '--db', db, '--account', accountId, '--weight-cost', '500']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/weight_cost: Value must be at most 100/);
    expect((await runTel(['resources', 'update', resourceId, '--db', db, '--account', accountId])).code).toBe(2);
  });

  it('resources create refuses an invalid document with the field and exit 1', async () => {
    const r = await runTel(['resources', 'create', 'Bad', '--db', db, '--weight-cost', '500']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/weight_cost: Value must be at most 100/);
  });

  it('resources import creates the valid items, reports the others and exits 1', async () => {
    const file = join(tmp.dir, 'carriers.json');
    writeFileSync(file, JSON.stringify([{ id: 'imp-1', name: 'One', gateways: [] }, { id: 'imp-2', name: '', gateways: [] }]));
    const r = await runTel(['resources', 'import', file, '--db', db, '--account', accountId]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Created 1 resource\(s\): imp-1\./);
    expect(r.stdout).toMatch(/imp-2: .*minLength/);
    const upd = await runTel(['resources', 'import', '-', '--update', '--db', db, '--account', accountId, '--json'], {
      stdin: JSON.stringify([{ id: 'imp-1', weight_cost: 5 }]),
    });
    expect(upd.code).toBe(0);
    expect(JSON.parse(upd.stdout).successes['imp-1'].weight_cost).toBe(5);
  });

  it('jobs create with no server runs the job here, with plain progress lines when not a terminal', async () => {
    const file = join(tmp.dir, 'numbers.txt');
    const numbers = Array.from({ length: 50 }, (_, i) => `+1303555${String(1000 + i)}`);
    writeFileSync(file, `# a comment\n${numbers.join('\n')}\nnot-a-number\n`);
    await runTel(['config', 'set', 'api.resources', 'job_batch_size', '10', '--db', db]);
    const r = await runTel(['jobs', 'create', '--db', db, '--account', accountId, '--resource', resourceId, '--numbers', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/No server runs on this database: executing the job here\./);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('job '));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.at(-1)).toMatch(/: complete 51\/51 \(100%\), 50 added, 1 errors$/);
    expect(r.stderr).not.toContain('\x1b[');
    expect(r.stdout).toMatch(/complete: 50 numbers added, 1 errors/);
  });

  it('jobs create on a terminal draws a bar redrawn in place, below the notices', async () => {
    const r = await runTel(['jobs', 'create', '--db', db, '--account', accountId, '--resource', resourceId, '--numbers', '-'], {
      isTTY: true,
      stdin: Array.from({ length: 40 }, (_, i) => `+1303556${String(1000 + i)}`).join('\n'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(REPLACE_LINE);
    // What the terminal shows once each REPLACE_LINE has erased the line above it.
    const screen: string[] = [];
    for (let line of r.stderr.split('\n')) {
      while (line.startsWith(REPLACE_LINE)) {
        screen.pop();
        line = line.slice(REPLACE_LINE.length);
      }
      screen.push(line);
    }
    expect(screen).toContain('No server runs on this database: executing the job here.');
    const bars = screen.filter((l) => l.startsWith('['));
    expect(bars).toHaveLength(1);
    expect(bars[0]).toMatch(/\[#{30}\] 100%  40\/40  added 40  errors 0  complete/);
  });

  it('jobs create --no-wait only queues; jobs list shows it pending; jobs run executes it; jobs show lists errors', async () => {
    const q = await runTel(['jobs', 'create', '--db', db, '--account', accountId, '--resource', resourceId, '--numbers', '-', '--no-wait', '--json'], {
      stdin: '+13035571000, +13035571001 bogus',
    });
    expect(q.code).toBe(0);
    const id = JSON.parse(q.stdout).id;
    const listed = await runTel(['jobs', 'list', '--db', db, '--status', 'pending', '--json']);
    expect(JSON.parse(listed.stdout).map((j: { id: string }) => j.id)).toEqual([id]);
    const run = await runTel(['jobs', 'run', '--db', db]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${id}\\s+complete\\s+3\\s+2\\s+1\\s+complete`));
    const shown = await runTel(['jobs', 'show', id, '--db', db]);
    expect(shown.stdout).toMatch(/complete 3\/3/);
    expect(shown.stdout).toMatch(/bogus: invalid_number/);
    const again = await runTel(['jobs', 'run', '--db', db]);
    expect(again.stdout).toMatch(/No job is waiting for an executor\./);
  });

  it('a job with an unknown resource fails: exit 1 with the reason', async () => {
    const r = await runTel(['jobs', 'create', '--db', db, '--resource', 'missing', '--numbers', '-'], { stdin: '+13035580000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: unknown resource/);
  });

  it('jobs create --help says who executes the job', async () => {
    const r = await runTel(['jobs', 'create', '--help']);
    expect(r.stdout).toMatch(/A running `tel serve` on the same database takes/);
    expect(r.stdout).toMatch(/--no-wait only queues the job/);
  });

  it('the real binary reads numbers from stdin and runs the job itself when no server runs', async () => {
    const r = await spawnTel(['jobs', 'create', '--db', db, '--account', accountId, '--resource', resourceId, '--numbers', '-'], {
      stdin: '+13035590000\n+13035590001\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/executing the job here/);
    expect(r.stdout).toMatch(/complete: 2 numbers added, 0 errors/);
  });
});

describe('tel jobs create beside a running server', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    srv.core.config.set('api.resources', { job_poll_interval_ms: 50 });
  });
  afterAll(async () => srv.close());

  it('leaves the job to the server and follows its progress', async () => {
    const res = await runTel(['resources', 'create', 'C', '--db', srv.dbFile, '--json']);
    const resourceId = JSON.parse(res.stdout).id;
    const r = await runTel(['jobs', 'create', '--db', srv.dbFile, '--resource', resourceId, '--numbers', '-'], { stdin: '+15035550100\n+15035550101' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/A running tel serve on this database executes the job\./);
    expect(r.stderr).not.toMatch(/executing the job here/);
    expect(r.stdout).toMatch(/complete: 2 numbers added/);
    const inv = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/phone_numbers`, { token: srv.adminToken });
    expect(Object.keys(inv.body.data.numbers)).toEqual(['+15035550100', '+15035550101']);
  });
});
