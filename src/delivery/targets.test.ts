import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import type { DeliveryRow } from './outbox.js';
import { deliverySettings } from './settings.js';
import { Targets } from './targets.js';

/** A target with `queued` rows in memory, whose tries so far took `latencyMs` and ended `ok`. */
function targetWith(targets: Targets, key: string, queued: number, { latencyMs = 5, ok = true, ratePerS = null as number | null } = {}) {
  const t = targets.of(key, null);
  t.active = 1;
  targets.finished(t, key, ok, latencyMs);
  for (let i = 0; i < queued; i++) targets.hold(t, { id: i, rate_per_s: ratePerS } as unknown as DeliveryRow);
  return t;
}

describe('whether the sender falls behind (its commits then shrink)', () => {
  let srv: TestServer;
  let targets: Targets;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.close();
  });
  const fresh = () => (targets = new Targets(srv.core, () => deliverySettings(srv.core)));

  it('a quick target with half its window queued: yes; with less: no', () => {
    fresh();
    const key = 'http://127.0.0.1:1/quick';
    const t = targetWith(targets, key, 10);
    expect(targets.fallingBehind()).toBe(false);
    const half = Math.ceil(targets.windowOf(key) / 2);
    for (let i = t.queue.length; i < half; i++) targets.hold(t, { id: i, rate_per_s: null } as unknown as DeliveryRow);
    expect(targets.fallingBehind()).toBe(true);
  });

  it('a slow, a failing or a paced target, however much it has queued: no (its backlog waits on disk by design)', () => {
    fresh();
    targetWith(targets, 'http://127.0.0.1:1/slow', 5000, { latencyMs: 2000 });
    targetWith(targets, 'http://127.0.0.1:1/failing', 5000, { ok: false });
    targetWith(targets, 'http://127.0.0.1:1/paced', 5000, { ratePerS: 1000 });
    expect(targets.fallingBehind()).toBe(false);
  });
});

describe("a target's breaker, as the sender that last had it left it", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('a target whose breaker was left open is probed one try at a time from the first; one left closed has full concurrency', () => {
    const record = srv.core.db.prepare('INSERT INTO delivery_breakers (target, source_id, state, failures, changed) VALUES (?, ?, ?, ?, 0)');
    record.run('http://192.0.2.1/open h1', 'h1', 'open', 7);
    record.run('http://192.0.2.1/closed h2', 'h2', 'closed', 3);
    const targets = new Targets(srv.core, () => deliverySettings(srv.core));
    const open = targets.of('http://192.0.2.1/open h1', 'h1');
    const closed = targets.of('http://192.0.2.1/closed h2', 'h2');
    expect([open.failures, targets.breakerOpen(open), targets.concurrencyOf(open)]).toEqual([7, true, 1]);
    expect([closed.failures, targets.breakerOpen(closed), targets.concurrencyOf(closed)]).toEqual([0, false, 16]);
    // its first success closes it, and says so
    open.active = 1;
    expect(targets.finished(open, 'http://192.0.2.1/open h1', true, 5)).toMatchObject({ target: 'http://192.0.2.1/open h1', sourceId: 'h1', state: 'closed', failures: 0 });
  });
});

describe("a target's window, pace and breaker", () => {
  const env = freshCoreEachTest('targets');
  const KEY = 'http://192.0.2.1/in h1';
  const rowAt = (rate: number | null, id = 1) => ({ id, rate_per_s: rate }) as unknown as DeliveryRow;
  /** One try of `t` ended: `ok`, taking `latencyMs`. */
  const done = (targets: Targets, t: ReturnType<Targets['of']>, ok: boolean, latencyMs = 5) => {
    t.active++;
    return targets.finished(t, KEY, ok, latencyMs);
  };

  it('holds two rounds of its concurrency, 256 while it answers quickly, and about two seconds of its pace when paced', () => {
    const targets = new Targets(env.core, () => deliverySettings(env.core));
    expect(targets.windowOf(KEY)).toBe(32);
    const t = targets.of(KEY, 'h1');
    expect(t).toMatchObject({ active: 0, queue: [], lastDoneAt: 0, failures: 0, latencyMs: 0, sourceId: 'h1', reserved: 0, spilled: false, ratePerS: null });
    expect(targets.windowOf(KEY)).toBe(32);
    done(targets, t, true, 99);
    expect(targets.windowOf(KEY)).toBe(16 * 256);
    // what it showed is trusted for 30 s
    t.lastDoneAt = Date.now() - 29_000;
    expect(targets.windowOf(KEY)).toBe(16 * 256);
    t.lastDoneAt = Date.now() - 31_000;
    expect(targets.windowOf(KEY)).toBe(32);
    // slow on average (100 ms or more): two rounds
    t.lastDoneAt = 0;
    done(targets, t, true, 100);
    expect([t.latencyMs, targets.windowOf(KEY)]).toEqual([100, 32]);
    // paced: two seconds of its rate, two rows at least
    for (const [rate, window] of [[10, 20], [2.4, 5], [0.1, 2]] as const) {
      targets.hold(t, rowAt(rate));
      expect(targets.windowOf(KEY), String(rate)).toBe(window);
    }
    expect(targets.load(KEY)).toBe(3);
    expect(targets.load('http://192.0.2.1/other')).toBe(0);
  });

  it("the first try's time starts the average; each later one weighs a fifth", () => {
    const targets = new Targets(env.core, () => deliverySettings(env.core));
    const t = targets.of(KEY, null);
    done(targets, t, true, 200);
    expect(t.latencyMs).toBe(200);
    done(targets, t, true, 100);
    expect(t.latencyMs).toBe(180);
    expect(t.active).toBe(0);
    expect(t.lastDoneAt).toBeGreaterThan(Date.now() - 1000);
  });

  it('tries of a paced target start one interval apart; one that fell behind by less keeps its cadence, one idle longer starts afresh', () => {
    const targets = new Targets(env.core, () => deliverySettings(env.core));
    const t = targets.of(KEY, null);
    expect(targets.paceWait(t, 1000)).toBe(0);
    targets.hold(t, rowAt(10));
    expect(targets.paceWait(t, 1000)).toBe(0);
    const starts: number[] = [];
    for (const now of [1000, 1100, 1250, 1500, 1700]) {
      targets.paced(t, rowAt(10), now);
      starts.push(t.nextStartAt);
    }
    // behind by a whole interval (1700 for the slot at 1600) is idle: afresh, not a burst of two
    expect(starts).toEqual([1100, 1200, 1300, 1600, 1800]);
    expect([targets.paceWait(t, 1750), targets.paceWait(t, 1800), targets.paceWait(t, 1900)]).toEqual([50, 0, 0]);
    // a rate below the slowest pace is read as the slowest: one try every 100 s
    targets.paced(t, rowAt(0.0001), 10_000_000);
    expect(t.nextStartAt).toBe(10_100_000);
    // a row that is not paced moves nothing; a queue led by one waits for nothing
    targets.paced(t, rowAt(null), 20_000_000);
    expect(t.nextStartAt).toBe(10_100_000);
    t.queue = [rowAt(null)];
    expect(targets.paceWait(t, 0)).toBe(0);
  });

  it('the breaker opens at the threshold, in one change, and closes at the first success', () => {
    const targets = new Targets(env.core, () => ({ ...deliverySettings(env.core), breakerFailureThreshold: 3, perTargetConcurrency: 4 }));
    const t = targets.of(KEY, 'h1');
    expect([done(targets, t, false), done(targets, t, false)]).toEqual([undefined, undefined]);
    expect([targets.breakerOpen(t), targets.concurrencyOf(t)]).toEqual([false, 4]);
    const opened = done(targets, t, false);
    expect(opened).toMatchObject({ target: KEY, sourceId: 'h1', state: 'open', failures: 3 });
    expect(opened!.at).toBeGreaterThan(Date.now() - 1000);
    expect([targets.breakerOpen(t), targets.concurrencyOf(t), targets.windowOf(KEY)]).toEqual([true, 1, 2]);
    expect(done(targets, t, false)).toBeUndefined();
    expect(done(targets, t, true)).toMatchObject({ state: 'closed', failures: 0 });
    expect(targets.breakerOpen(undefined)).toBe(false);
    expect(targets.concurrencyOf(undefined)).toBe(4);
  });

  it('which targets have rows queued, which are full, and which are forgotten once idle', () => {
    const targets = new Targets(env.core, () => ({ ...deliverySettings(env.core), perTargetConcurrency: 1 }));
    const full = targets.of('full', null);
    targets.hold(full, rowAt(null, 1));
    targets.hold(full, rowAt(null, 2));
    const one = targets.of('one', null);
    targets.hold(one, rowAt(null, 3));
    const busy = targets.of('busy', null);
    busy.active = 2;
    const reserved = targets.of('reserved', null);
    reserved.reserved = 1;
    const recent = targets.of('recent', null);
    recent.lastDoneAt = 5000;
    targets.of('idle', null).lastDoneAt = 4999;
    expect(targets.queued()).toEqual(['full', 'one']);
    expect(targets.saturated()).toEqual(['full', 'busy']);
    targets.forgetIdle(5000);
    expect(['full', 'one', 'busy', 'reserved', 'recent', 'idle'].map((k) => targets.get(k) !== undefined)).toEqual([true, true, true, true, true, false]);
    // a forgotten target comes back new
    expect(targets.of('idle', 'h9')).toMatchObject({ lastDoneAt: 0, sourceId: 'h9' });
  });

  it('stopping the pace timers clears each one', () => {
    const targets = new Targets(env.core, () => deliverySettings(env.core));
    let cleared = 0;
    targets.of('a', null).paceTimer = { clear: () => cleared++ };
    targets.of('b', null);
    targets.of('c', null).paceTimer = { clear: () => cleared++ };
    targets.stopPacing();
    expect(cleared).toBe(2);
  });
});
