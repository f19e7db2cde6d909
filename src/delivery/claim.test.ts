import { describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { commitCount } from '../store/db.js';
import { cancelWaiting, claimRows, claimTargetRows, dueIds, nextDueAt, pendingTargets } from './claim.js';
import type { DeliveryKind } from './kinds.js';
import { cancel, stillWanted } from './kinds.js';
import { enqueueDelivery, findDelivery } from './outbox.js';

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

  it("a deleted hook's rows in a server are cancelled a batch in the caller's turn, the rest in the turns after it", async () => {
    (env.core as { serving: boolean }).serving = true;
    // over three endpoints: a batch takes what the first holds and the rest of its 500 from the next
    const ids = Array.from({ length: 1100 }, (_, i) => enqueue(`http://192.0.2.${1 + (i % 3)}/x`, 'gone'));
    const cancelled = () => (env.core.db.prepare("SELECT count(*) AS n FROM outbox WHERE status = 'cancelled'").get() as { n: number }).n;
    cancelWaiting(env.core, 'gone');
    expect(cancelled()).toBe(500);
    for (let i = 0; i < 50 && cancelled() < ids.length; i++) await new Promise((r) => setImmediate(r));
    expect(cancelled()).toBe(ids.length);
  });

  it('claimed rows their kind no longer wants are cancelled, the others kept; a kind that declares nothing wants them all', () => {
    const refused = new Set<number>();
    const asked: number[][] = [];
    const lab: DeliveryKind = {
      sendable: (_core, rows) => {
        asked.push(rows.map((r) => r.id));
        return new Set(rows.map((r) => r.id).filter((id) => !refused.has(id)));
      },
    };
    (env.core as { deliveryKinds: Record<string, DeliveryKind> }).deliveryKinds = { ...env.core.deliveryKinds, lab };
    const now = Date.now();
    const [a, b, c] = [0, 1, 2].map(() => enqueue('http://192.0.2.2/b', 'h2', now - 100));
    const other = enqueueDelivery(env.core, { kind: 'other', accountId: 'a1', eventName: 'e', url: 'http://192.0.2.2/b', method: 'post', payload: {}, dueAt: now - 100 });
    refused.add(b);
    const got = claimRows(env.core, claimant, [a, b, c, other]);
    expect(got.map((r) => r.id).sort()).toEqual([a, c, other].sort());
    expect(asked).toEqual([[a, b, c]]);
    expect(findDelivery(env.core, b)).toMatchObject({ status: 'cancelled', owner: null, lease_until: null });
    expect(findDelivery(env.core, a)).toMatchObject({ status: 'sending', owner: 'me/1' });
    // asked again of each row just before its try
    const rowA = findDelivery(env.core, a)!;
    expect(stillWanted(env.core, rowA)).toBe(true);
    refused.add(a);
    expect(stillWanted(env.core, rowA)).toBe(false);
    expect(stillWanted(env.core, findDelivery(env.core, other)!)).toBe(true);
    // cancelled only while it is being sent (another sender may have taken it back meanwhile)
    cancel(env.core, rowA, 77);
    expect(findDelivery(env.core, a)).toMatchObject({ status: 'cancelled', owner: null, lease_until: null, modified: 77 });
    const d = enqueue('http://192.0.2.2/b', 'h2', now - 100);
    cancel(env.core, findDelivery(env.core, d)!, 78);
    expect(findDelivery(env.core, d)!.status).toBe('pending');
    // a target's own claim drops them too
    const e = enqueue('http://192.0.2.2/b', 'h2', now - 50);
    refused.add(e);
    const { rows } = claimTargetRows(env.core, claimant, 'http://192.0.2.2/b h2', 5);
    expect(rows.map((r) => r.id)).toEqual([d]);
    expect(findDelivery(env.core, e)!.status).toBe('cancelled');
  });

  it("a server's batched cancel stops once a batch comes short: no commit follows the last", async () => {
    (env.core as { serving: boolean }).serving = true;
    for (let i = 0; i < 700; i++) enqueue('http://192.0.2.1/x', 'gone');
    const turns = () => new Promise((r) => setImmediate(r));
    cancelWaiting(env.core, 'gone');
    for (let i = 0; i < 20; i++) await turns();
    const settled = commitCount(env.core.db);
    for (let i = 0; i < 20; i++) await turns();
    expect(commitCount(env.core.db)).toBe(settled);
    expect((env.core.db.prepare("SELECT count(*) AS n FROM outbox WHERE status = 'pending'").get() as { n: number }).n).toBe(0);
  });
});
