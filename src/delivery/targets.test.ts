import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
