import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../test/helpers/server.js';
import { closeCore, openCore, type Core } from '../core.js';
import { newSecret, signatureHeaders } from '../delivery/sign.js';
import { findHook } from '../modules/webhooks/store.js';
import { AnswerPolicy, parseRule } from '../sink/policy.js';
import { startSinkReceiver, type RunningSink } from '../sink/receiver.js';
import { App } from './App.js';
import { WatchFeed } from './feed.js';
import { followQueries, openWatchSource } from './sqlite-source.js';
import { SENT_ATTEMPT_SQL, requestQueries } from './sqlite-received.js';
import { waitUntil } from './test-fixture.js';
import { runTel } from '../../test/helpers/cli.js';

const KEY = { down: '\u001B[B', enter: '\r', esc: '\u001B' };

// A server delivering to the sink's receiver, which records on a connection of its own, as
// `tel sink` does in its process; the watch reads through a third.
let srv: TestServer;
let sink: RunningSink;
let sinkCore: Core;
let watchCore: Core;
let account: string;
let flaky: string;
const received = () => (watchCore.db.prepare('SELECT COUNT(*) AS n FROM sink_requests').get() as { n: number }).n;

beforeAll(async () => {
  srv = await startTestServer();
  const token = srv.adminToken;
  await srv.request('POST', '/v2/system_configs/webhooks', { token, data: { default: { attempt_failure_count: 1, retry_base_delay_ms: 0 } } });
  account = (await createSubAccount(srv, srv.master.account_id, 'Consumers')).id;
  sinkCore = openCore(srv.dbFile);
  watchCore = openCore(srv.dbFile);
  sink = await startSinkReceiver(sinkCore, { host: '127.0.0.1', port: 0, policy: new AnswerPolicy({}, [parseRule('/flaky=500')], 1), recorded: () => {} });
  const hook = async (name: string, path: string, secret?: string) =>
    (
      await srv.request('PUT', `/v2/accounts/${account}/webhooks`, {
        token,
        data: { name, uri: `${sink.url}${path}`, hook: 'channel_create', format: 'json', retries: 0, ...(secret ? { secret } : {}) },
      })
    ).body.data.id as string;
  await hook('Orders', '/orders', newSecret());
  flaky = await hook('Flaky', '/flaky');
  await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', answer: false } });
  const body = '{"made":"by hand"}';
  await fetch(`${sink.url}/forged`, { method: 'POST', body, headers: signatureHeaders([newSecret()], 'by_hand', body) });
  await waitUntil(() => received() === 3 && findHook(watchCore, account, flaky)?.doc.enabled === false, 'three requests and Flaky auto-disabled');
});
afterAll(async () => {
  await sink.close();
  closeCore(sinkCore);
  closeCore(watchCore);
  await srv.close();
});

const mounted: (() => void)[] = [];
afterEach(() => {
  for (const unmount of mounted.splice(0)) unmount();
});

function mount(rows = 40) {
  const feed = new WatchFeed(openWatchSource(watchCore, {}), { pollMs: 20 });
  const app = render(<App feed={feed} scope="test.db · all accounts" size={{ columns: 150, rows }} />);
  mounted.push(() => {
    app.unmount();
    feed.stop();
  });
  const frame = () => app.lastFrame() ?? '';
  return {
    frame,
    selected: () => frame().split('\n').find((l) => l.startsWith('›')) ?? '',
    async press(...keys: string[]) {
      for (const k of keys) {
        app.stdin.write(k);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    until: (text: string | RegExp) => waitUntil(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), `screen to show ${text}\n${frame()}`),
    /** moves the cursor down to the row showing `text` */
    async select(text: string) {
      for (let i = 0; i < 5 && !this.selected().includes(text); i++) await this.press(KEY.down);
      expect(this.selected()).toContain(text);
    },
  };
}

describe('Received pane', () => {
  test('3 shows what the sink received, newest first, with verdicts; filters and f narrow it', async () => {
    const w = mount();
    await w.until('received 3');
    await w.press('3');
    await w.until('/forged');
    const lines = w.frame().split('\n');
    expect(lines.find((l) => l.includes('/orders'))).toMatch(/Consumers\s+Orders\s+POST\s+200\s+\d+ms\s+valid\s+\/orders/);
    expect(lines.find((l) => l.includes('/flaky'))).toMatch(/Consumers\s+Flaky\s+POST\s+500\s+\d+ms\s+unsigned\s+\/flaky/);
    expect(lines.find((l) => l.includes('/forged'))).toMatch(/-\s+-\s+POST\s+200\s+\d+ms\s+unknown hook\s+\/forged/);
    // newest first: ids descend down the screen
    const ids = lines.filter((l) => /\/(orders|flaky|forged)/.test(l)).map((l) => l.match(/\/(orders|flaky|forged)/)![1]);
    expect(ids).toHaveLength(3);
    expect(w.frame()).toContain('1 bad signatures');

    await w.press('/', ...'verdict:valid', KEY.enter);
    await w.until('filter "verdict:valid": 1 of 3 shown');
    await w.press(KEY.esc);
    await w.until(/^3 shown/m);
    await w.press('f');
    await w.until('failures only: 2 of 3 shown');
    expect(w.frame()).not.toContain('/orders');
  });

  test("Enter puts tel's attempt of the same try beside the request; a request tel did not send says so and shows what arrived", async () => {
    const w = mount(60);
    await w.press('3');
    await w.until('/forged');
    await w.select('/forged');
    await w.press(KEY.enter);
    await w.until('not a delivery of tel');
    // what arrived is shown whole though tel did not send it: its headers, its body, the answer
    await w.until('"made": "by hand"');
    expect(w.frame()).toMatch(/^ {2}webhook-id: by_hand$/m);
    expect(w.frame()).toMatch(/^ {2}content-length: 18$/m);
    expect(w.frame()).toMatch(/What the sink answered\n {2}answered 200 in \d+ms/);
    await w.press(KEY.esc);
    await w.until('/orders');
    await w.press('g');
    await w.select('/orders');
    await w.press(KEY.enter);
    await w.until('What the sink answered');
    const f = w.frame();
    expect(f).toMatch(/Verdict\s+valid: signed with the hook's secret/);
    expect(f).toMatch(/Sent by tel \(attempt \d+\)\s+│ Received by the sink \(request \d+\)/);
    expect(f).toMatch(/ {2}x-hook-id: (\w+)\s+│ {3}x-hook-id: \1/);
    expect(f).toMatch(/success {2}HTTP 200 {2}latency \d+ms {2}retries left -\s+│ {3}answered 200 in \d+ms/);
  });

  test("r on a received request re-enables its auto-disabled hook", async () => {
    const w = mount();
    await w.press('3');
    await w.until('/flaky');
    await w.select('/flaky');
    await w.press('r');
    await w.until('Re-enabled hook "Flaky"');
    expect(findHook(watchCore, account, flaky)?.doc.enabled).toBe(true);
  });

  test('off a terminal each received request is a line (--json: an object of type received)', async () => {
    const lines = (await runTel(['watch', '--once', '--db', srv.dbFile])).stdout.split('\n').filter((l) => l.includes(' received '));
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.includes('/orders'))).toMatch(/ received POST \/orders status=200 latency_ms=\d+ verdict=valid account=Consumers hook=Orders event=\w+ id=\d+$/);
    expect(lines.find((l) => l.includes('/forged'))).toMatch(/verdict="unknown hook" event=by_hand/);
    const objects = (await runTel(['watch', '--once', '--json', '--db', srv.dbFile])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(objects.filter((o) => o.type === 'received').map((o) => o.path).sort()).toEqual(['/flaky', '/forged', '/orders']);
  });

  test('its reads are ranges of an index, never a scan of a table', () => {
    const plan = (sql: string) => (watchCore.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    const unscoped = requestQueries({ sql: '', args: [] });
    const scoped = requestQueries({ sql: ' AND r.account_id = ?', args: [account] });
    for (const sql of [unscoped.after, unscoped.before, unscoped.one, scoped.after, scoped.before, SENT_ATTEMPT_SQL]) {
      expect(plan(sql)).not.toMatch(/SCAN (r|a|delivery_attempts|sink_requests)\b/);
    }
    expect(plan(scoped.after)).toMatch(/sink_requests_account/);
    expect(plan(SENT_ATTEMPT_SQL)).toMatch(/delivery_attempts_source \(source_id=\? AND created>\? AND created<\?\)/);
    // the attempts' own follow queries are unchanged by the new pane
    expect(plan(followQueries({}).attemptsAfter)).not.toMatch(/SCAN a\b/);
  });
});
