import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { findHook } from '../modules/webhooks/store.js';
import { App } from './App.js';
import { clock } from './format.js';
import { WatchFeed } from './feed.js';
import { openWatchSource, type WatchScope } from './sqlite-source.js';
import { startWatchFixture, waitUntil, type WatchFixture } from './test-fixture.js';

const KEY = { down: '\u001B[B', up: '\u001B[A', enter: '\r', tab: '\t', esc: '\u001B', backspace: '\u007F' };

let fx: WatchFixture;
beforeAll(async () => {
  fx = await startWatchFixture();
});
afterAll(async () => {
  await fx?.close();
});

const mounted: { unmount(): void; feed: WatchFeed }[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) {
    m.unmount();
    m.feed.stop();
  }
});

/** Renders the watch over the fixture's database, as `tel watch` would in another process. */
function mount(scope: WatchScope = {}, rows = 16, source = openWatchSource(fx.core, scope)) {
  const feed = new WatchFeed(source, { pollMs: 20 });
  const app = render(<App feed={feed} scope="test.db · all accounts" size={{ columns: 150, rows }} />);
  mounted.push({ unmount: app.unmount, feed });
  const frame = () => app.lastFrame() ?? '';
  return {
    frame,
    /** lines of the table body (below the title line) */
    rows: () => frame().split('\n').slice(3, 3 + rows - 6),
    selected: () => frame().split('\n').find((l) => l.startsWith('›')) ?? '',
    async press(...keys: string[]) {
      for (const k of keys) {
        app.stdin.write(k);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    until: (text: string | RegExp, timeoutMs?: number) =>
      waitUntil(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), `screen to show ${text}\n${frame()}`, timeoutMs),
  };
}

describe('Attempts pane', () => {
  test('lists attempts newest first with hook, result and HTTP status, and totals in the header', async () => {
    const w = mount();
    await w.until('CRM');
    expect(w.frame()).toMatch(/1 Attempts/);
    const lines = w.rows().filter((l) => /CRM|Billing/.test(l));
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes('Billing'))).toMatch(/Acme\s+Billing\s+channel_create\s+failure\s+500\s+\d+ms\s+0\s+bad response code/);
    expect(lines.find((l) => l.includes('CRM'))).toMatch(/Acme\s+CRM\s+channel_create\s+success\s+200\s+\d+ms\s+-/);
    expect(w.frame()).toMatch(/attempts 2\s+ok 1\s+failed 1\s+delivered 50\.0%\s+2\/min/);
    expect(w.frame()).toContain('q quit');
  });

  test('new attempts appear at the top while watching, without scanning again', async () => {
    const w = mount();
    await w.until('attempts 2 ');
    const before = fx.attemptCount();
    await fx.call(); // Billing is auto-disabled now: only CRM is called
    await w.until(`attempts ${before + 1} `, 1000);
    expect(w.selected()).toMatch(/CRM\s+channel_create\s+success/);
  });

  test('arrows and j/k move the selection; Enter shows the request and the response; Esc goes back', async () => {
    const w = mount();
    await w.until('Billing');
    const first = w.selected();
    await w.press('j');
    const second = w.selected();
    expect(second).not.toBe(first);
    await w.press(KEY.up);
    expect(w.selected()).toBe(first);
    // Select the CRM success and open it.
    while (!w.selected().includes('CRM')) await w.press(KEY.down);
    await w.press(KEY.enter);
    await w.until('Attempt detail');
    expect(w.frame()).toMatch(/Request\n\s+POST http:\/\/127\.0\.0\.1:\d+\/ok/);
    await w.press('G'); // scroll to the end of the detail: the response
    await w.until('thanks');
    expect(w.frame()).toContain('HTTP 200');
    await w.press(KEY.esc);
    await w.until('TIME');
    expect(w.frame()).not.toContain('Attempt detail');
  });

  test('/ filters by field words; f shows failures only; Esc clears', async () => {
    const w = mount();
    await w.until('Billing');
    await w.press('/', ...'hook:crm', KEY.enter);
    await w.until('filter "hook:crm"');
    expect(w.rows().some((l) => l.includes('Billing'))).toBe(false);
    expect(w.rows().some((l) => l.includes('CRM'))).toBe(true);
    await w.press(KEY.esc);
    await w.press('f');
    await w.until('failures only');
    expect(w.rows().filter((l) => /CRM|Billing/.test(l)).every((l) => l.includes('Billing'))).toBe(true);
    await w.press('/', ...'status:2xx', KEY.enter);
    await w.until('No attempt matches the filter');
    await w.press(KEY.esc);
    await w.until(/^\d+ shown/m);
    expect(w.rows().some((l) => l.includes('CRM'))).toBe(true);
    await w.press('/', ...'colour:red', KEY.enter);
    await w.until('unknown filter field colour');
  });

  test('r re-enables the selected auto-disabled hook through the webhooks service', async () => {
    expect(findHook(fx.core, fx.acme, fx.hooks.billing)?.disableReason).toMatch(/too many failed/);
    const w = mount();
    await w.until('Billing');
    while (!w.selected().includes('Billing')) await w.press('j');
    await w.press(KEY.enter);
    await w.until('auto-disabled');
    expect(w.frame()).toContain('press r to re-enable');
    // its endpoint kept failing: the sender's circuit breaker opened
    expect(w.frame()).toMatch(/Breaker {5}open since \d\d:\d\d:\d\d after \d+ failed tries in a row/);
    await w.press('r');
    await w.until('Re-enabled hook "Billing"');
    await w.until('Hook state  enabled');
    const hook = findHook(fx.core, fx.acme, fx.hooks.billing)!;
    expect(hook.doc.enabled).toBe(true);
    expect(hook.disableReason).toBeNull();
    await w.press('r');
    await w.until('is enabled already');
  });
});

describe('Jobs pane', () => {
  test('Tab and 1/2 switch panes; a job shows its progress, counts and per-number errors', async () => {
    const w = mount();
    await w.until('CRM');
    await w.press(KEY.tab);
    await w.until(fx.jobId);
    const line = w.selected();
    expect(line).toMatch(/Acme\s+Carrier A\s+complete\s+\[#+\]\s+3\/3\s+2\s+1/);
    await w.press(KEY.enter);
    await w.until('Job detail');
    expect(w.frame()).toMatch(/Errors \(1\)\n\s+not-a-number\s+\S+/);
    await w.press('1');
    await w.until('TIME');
    await w.press('2');
    await w.until('PROGRESS');
    await w.press('f');
    await w.until('failures only');
    expect(w.frame()).toContain(fx.jobId);
  });

  test('a job started while watching appears and its counts follow it to the end', async () => {
    const w = mount();
    await w.press('2');
    await w.until(fx.jobId);
    const resource = (fx.core.db.prepare("SELECT id FROM docs WHERE kind = 'resource'").get() as { id: string }).id;
    const numbers = Array.from({ length: 40 }, (_, i) => `+1415555${String(1000 + i)}`);
    const r = await fx.srv.request('PUT', `/v2/accounts/${fx.acme}/resources/jobs`, { token: fx.srv.adminToken, data: { resource_id: resource, numbers } });
    expect(r.status).toBe(201);
    await w.until(r.body.data.id, 1000);
    await w.until(new RegExp(`${r.body.data.id}\\s+Acme\\s+Carrier A\\s+complete\\s+\\[#+\\]\\s+40/40\\s+40\\s+0`));
    expect(w.selected()).toContain(r.body.data.id);
  });
});

describe('account scope', () => {
  test('--account narrows to one account; --descendants adds its sub-accounts', async () => {
    const master = mount({ accountId: fx.srv.master.account_id });
    const tree = mount({ accountId: fx.srv.master.account_id, descendants: true });
    const acme = mount({ accountId: fx.acme });
    await tree.until('CRM');
    await acme.until('CRM');
    await master.until('No webhook attempts yet');
    expect(master.frame()).toMatch(/jobs 0$/m);
  });
});

describe('storage', () => {
  test('the header says since when the disk holding the database is full, and stops saying it once there is space', async () => {
    let full = false;
    const source = { ...openWatchSource(fx.core), diskFull: () => full };
    const w = mount({}, 16, source);
    await w.until('CRM');
    expect(w.frame()).not.toMatch(/storage full/);
    const since = Date.now();
    full = true;
    await w.until(/storage full since \d\d:\d\d/);
    const shown = /storage full since (\d\d:\d\d)/.exec(w.frame())![1];
    expect([clock(since).slice(0, 5), clock(since + 60_000).slice(0, 5)]).toContain(shown);
    expect(w.frame().split('\n')[0]).toMatch(/3 Received\s+storage full since/);
    full = false;
    await waitUntil(() => !/storage full/.test(w.frame()), 'the warning to go');
  });
});
