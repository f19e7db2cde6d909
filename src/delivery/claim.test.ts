import { describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { cancelWaiting, claimRows, claimTargetRows, dueIds, nextDueAt, pendingTargets } from './claim.js';
import { enqueueDelivery } from './outbox.js';

describe('claiming due deliveries, target by target', () => {
  const env = freshCoreEachTest('claim');

  // a kind no module declares: every row of it stays sendable
  const enqueue = (url: string, sourceId: string, dueAt?: number) =>
    enqueueDelivery(env.core, { kind: 'lab', accountId: 'a1', sourceId, eventName: 'e', url, method: 'post', payload: {}, dueAt });
  const status = (id: number) => (env.core.db.prepare('SELECT status, owner FROM outbox WHERE id = ?').get(id) as { status: string; owner: string | null });
  const claimant = { owner: 'me/1', leaseMs: 10_000 };

  it('the targets with pending rows, each once; the due rows of one, oldest due first, up to the limit', () => {
    const now = Date.now();
    const b3 = enqueue('http://192.0.2.2/b', 'h2', now - 3000);
    const b1 = enqueue('http://192.0.2.2/b', 'h2', now - 1000);
    const b2 = enqueue('http://192.0.2.2/b', 'h2', now - 2000);
    enqueue('http://192.0.2.2/b', 'h2', now + 60_000);
    enqueue('http://192.0.2.1/a?x=1', 'h1', now - 10);
    const c = enqueue('http://192.0.2.3/c', 'h3', now);
    env.core.db.prepare("UPDATE outbox SET status = 'failed' WHERE id = ?").run(c);
    expect(pendingTargets(env.core)).toEqual(['http://192.0.2.1/a h1', 'http://192.0.2.2/b h2']);
    expect(dueIds(env.core, 'http://192.0.2.2/b h2', now, 10)).toEqual([b3, b2, b1]);
    expect(dueIds(env.core, 'http://192.0.2.2/b h2', now, 2)).toEqual([b3, b2]);
    expect(dueIds(env.core, 'http://192.0.2.2/b h2', now - 2000, 10)).toEqual([b3, b2]);
    expect(nextDueAt(env.core)).toBe(now - 3000);
  });

  it('a claim takes pending rows only, under the claimant with its lease; a target drains when fewer wait than wanted', () => {
    const now = Date.now();
    const ids = [0, 1, 2].map(() => enqueue('http://192.0.2.2/b', 'h2', now - 100));
    env.core.db.prepare("UPDATE outbox SET status = 'sending', owner = 'other/1' WHERE id = ?").run(ids[0]);
    const got = claimRows(env.core, claimant, ids);
    expect(got.map((r) => r.id)).toEqual([ids[1], ids[2]]);
    expect(got[0]).toMatchObject({ status: 'sending', owner: 'me/1' });
    expect(got[0].lease_until).toBeGreaterThanOrEqual(now + 10_000);
    expect(status(ids[0])).toEqual({ status: 'sending', owner: 'other/1' });

    const more = [0, 1, 2].map(() => enqueue('http://192.0.2.9/z', 'h9', now - 100));
    enqueue('http://192.0.2.9/z', 'h9', now + 60_000);
    const first = claimTargetRows(env.core, claimant, 'http://192.0.2.9/z h9', 2);
    expect(first.rows.map((r) => r.id)).toEqual(more.slice(0, 2));
    expect(first.drained).toBe(false);
    const rest = claimTargetRows(env.core, claimant, 'http://192.0.2.9/z h9', 2);
    expect(rest).toMatchObject({ drained: true });
    expect(rest.rows.map((r) => r.id)).toEqual([more[2]]);
    expect(claimTargetRows(env.core, claimant, 'http://192.0.2.9/z h9', 2)).toEqual({ rows: [], drained: true });
    env.core.db.prepare("UPDATE outbox SET status = 'sent' WHERE status = 'pending'").run();
    expect(nextDueAt(env.core)).toBeNull();
  });

  it("a deleted hook's waiting rows are cancelled, all of them, batch after batch; rows being sent and other hooks' are left", () => {
    const waiting = Array.from({ length: 1201 }, (_, i) => enqueue(`http://192.0.2.${1 + (i % 3)}/x`, 'gone'));
    const inFlight = enqueue('http://192.0.2.1/x', 'gone');
    env.core.db.prepare("UPDATE outbox SET status = 'sending' WHERE id = ?").run(inFlight);
    const other = enqueue('http://192.0.2.1/x', 'kept');
    const similar = enqueue('http://192.0.2.1/x', 'not-gone');
    cancelWaiting(env.core, 'gone');
    const counts = env.core.db.prepare("SELECT status, count(*) AS n FROM outbox WHERE source_id = 'gone' GROUP BY status ORDER BY status").all();
    expect(counts).toEqual([
      { status: 'cancelled', n: waiting.length },
      { status: 'sending', n: 1 },
    ]);
    expect([status(other).status, status(similar).status]).toEqual(['pending', 'pending']);
  });
});
