import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { closeCore, openCore, type Core } from '../core.js';
import { recordAttempt } from '../delivery/attempts.js';
import { enqueueDelivery, findDelivery } from '../delivery/outbox.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { createWebhook } from '../modules/webhooks/service.js';
import { transaction } from '../store/db.js';
import { tempDir } from '../../test/helpers/server.js';
import { App } from './App.js';
import { WatchFeed } from './feed.js';
import { followQueries, openWatchSource } from './sqlite-source.js';
import { waitUntil } from './test-fixture.js';

const ATTEMPTS = 100_000;
const ROWS = 30;
let tmp: ReturnType<typeof tempDir>;
let writer: Core;
let reader: Core;

beforeAll(() => {
  tmp = tempDir();
  const file = join(tmp.dir, 'big.db');
  writer = openCore(file);
  const { account_id } = initDatabase(writer, { account: 'Big', username: 'admin', password: 'secret-pass' });
  const hook = createWebhook(writer, account_id, { name: 'Firehose', uri: 'http://127.0.0.1:9/hook', hook: 'channel_create' });
  const id = enqueueDelivery(writer, {
    kind: 'webhook',
    accountId: account_id,
    sourceId: hook.id,
    sourceName: 'Firehose',
    eventName: 'channel_create',
    url: 'http://127.0.0.1:9/hook',
    method: 'post',
    payload: { call_id: 'x' },
  });
  const row = findDelivery(writer, id)!;
  const start = Date.now() - ATTEMPTS * 10;
  transaction(writer.db, () => {
    for (let i = 0; i < ATTEMPTS; i++) {
      const ok = i % 10 !== 0;
      recordAttempt(
        writer,
        row,
        { ok, url: row.url, status: ok ? 200 : 503, reason: ok ? undefined : 'bad response code', latencyMs: i % 97, reqHeaders: {}, reqBody: `{"n":${i}}` },
        1,
        0,
        start + i * 10,
      );
    }
  });
  reader = openCore(file);
});

afterAll(() => {
  closeCore(reader);
  closeCore(writer);
  tmp.cleanup();
});

test('100,000 attempts: only the visible rows are drawn, and keys stay quick', async () => {
  const feed = new WatchFeed(openWatchSource(reader), { pollMs: 50 });
  const app = render(<App feed={feed} scope="big.db" size={{ columns: 130, rows: ROWS }} />);
  const frame = () => app.lastFrame() ?? '';
  const selectedAt = () => frame().split('\n').findIndex((l) => l.startsWith('›'));
  try {
    await waitUntil(() => frame().includes('attempts 100,000'), 'the whole history to load', 10_000);
    const body = frame().split('\n').slice(3, -2);
    expect(body).toHaveLength(ROWS - 6);
    expect(body.every((l) => l.includes('Firehose'))).toBe(true);

    // Keys that arrive in one read (a held key) count one by one.
    app.stdin.write('jjj');
    await waitUntil(() => selectedAt() === 6, 'three moves from one read');

    // 200 moves, each answered by a frame: no key walks the 100,000 rows.
    const started = performance.now();
    for (let i = 0; i < 200; i++) app.stdin.write('j');
    // The selection walks down the screen, then stays on the last line as the rows scroll.
    await waitUntil(() => selectedAt() === ROWS - 4, 'the selection to reach the last screen line');
    app.stdin.write('G');
    await waitUntil(() => frame().split('\n')[selectedAt()]?.includes('failure'), 'the oldest attempt (a failure) to be selected');
    expect(performance.now() - started).toBeLessThan(3000);

    // A filter over the whole history, then back.
    app.stdin.write('/');
    for (const c of 'status:503') app.stdin.write(c);
    app.stdin.write('\r');
    await waitUntil(() => frame().includes('10000 of 100000 shown'), 'the filter to apply');
    expect(frame().split('\n').slice(3, -2).every((l) => l.includes('503'))).toBe(true);
  } finally {
    app.unmount();
    feed.stop();
  }
});

test('following reads by key and index: no query scans the attempts or jobs table', () => {
  const plan = (sql: string, args: unknown[]) =>
    (reader.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as string[])) as { detail: string }[]).map((r) => r.detail);
  const account = (reader.db.prepare('SELECT id FROM accounts LIMIT 1').get() as { id: string }).id;
  for (const scope of [{}, { accountId: account }, { accountId: account, descendants: true }]) {
    const fq = followQueries(scope);
    const attempts = [...plan(fq.attemptsAfter, [1, ...fq.attemptArgs, 10]), ...plan(fq.attemptsBefore, [1, ...fq.attemptArgs, 10])];
    const jobs = plan(fq.jobsChanged, [1, '[]', ...fq.jobArgs]);
    const why = JSON.stringify({ scope, attempts, jobs });
    expect([...attempts, ...jobs].filter((d) => /^SCAN (a|j|delivery_attempts|resource_jobs)\b/.test(d)), why).toEqual([]);
    // Every read of the attempts table is a range on the id (the primary key, or the last column of the account index).
    const reads = attempts.filter((d) => /^SEARCH a /.test(d));
    expect(reads.length, why).toBeGreaterThan(0);
    expect(reads.every((d) => /\b(rowid|id)[<>]\?/.test(d)), why).toBe(true);
  }
});
