import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runTel } from '../../test/helpers/cli.js';
import { WatchFeed } from './feed.js';
import { openWatchSource } from './sqlite-source.js';
import { runStream } from './stream.js';
import { startWatchFixture, waitUntil, type WatchFixture } from './test-fixture.js';

let fx: WatchFixture;
beforeAll(async () => {
  fx = await startWatchFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe('tel watch off a terminal', () => {
  test('--once prints the jobs and attempts that exist, one line each, and exits', async () => {
    const r = await runTel(['watch', '--once', '--db', fx.srv.dbFile]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`job ${fx.jobId} complete 3/3 ok=2 failed=1 resource="Carrier A" account=Acme`));
    expect(lines.filter((l) => / attempt failure status=500 .*hook=Billing/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / attempt success status=200 .*hook=CRM/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('failure'))).toHaveLength(1);
  });

  test('--json prints one object a line; --tail keeps the last ones', async () => {
    const r = await runTel(['watch', '--once', '--json', '--tail', '1', '--db', fx.srv.dbFile]);
    const objects = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(objects.map((o) => o.type)).toEqual(['job', 'attempt']);
    expect(objects[1]).toMatchObject({ accountName: 'Acme', event: 'channel_create' });
  });

  test('--account scopes the lines; bad options are refused', async () => {
    const master = await runTel(['watch', '--once', '--account', fx.srv.master.account_id, '--db', fx.srv.dbFile]);
    expect(master.stdout).toBe('');
    const tree = await runTel(['watch', '--once', '--account', fx.srv.master.account_id, '--descendants', '--db', fx.srv.dbFile]);
    expect(tree.stdout.trim().split('\n')).toHaveLength(3);
    expect((await runTel(['watch', '--descendants', '--db', fx.srv.dbFile])).code).toBe(2);
    const unknown = await runTel(['watch', '--account', 'f'.repeat(32), '--db', fx.srv.dbFile]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No account "f{32}" \(--account\)/);
    expect((await runTel(['watch', '--tail', 'many', '--db', fx.srv.dbFile])).code).toBe(2);
  });

  test('following prints a line per new attempt as it is recorded, until stopped', async () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const feed = new WatchFeed(openWatchSource(fx.core), { pollMs: 20 });
    const running = runStream(feed, (l) => lines.push(l), { once: false, tail: 0, json: false, pollMs: 20, signal: stop.signal });
    expect(lines).toEqual([]);
    await fx.call();
    await waitUntil(() => lines.length > 0, 'a line for the new attempt');
    expect(lines[0]).toMatch(/ attempt success status=200 .*hook=CRM event=channel_create/);
    stop.abort();
    await running;
  });
});
