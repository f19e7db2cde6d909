import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { closeCore, openCore } from '../core.js';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { tempDir } from '../../test/helpers/server.js';
import { workerIsGone } from '../store/presence.js';
import { retireWorker } from '../store/presence.js';
import { newOwner, recoverOrphans, releaseOwner, renewLease } from './lease.js';
import { enqueueDelivery } from './outbox.js';

describe("senders' leases on the rows they send", () => {
  const env = freshCoreEachTest('lease');

  const enqueue = () => enqueueDelivery(env.core, { kind: 'webhook', accountId: 'a1', eventName: 'channel_create', url: 'http://192.0.2.1/x', method: 'post', payload: {} });
  /** A row sending under `owner`, its lease until `leaseUntil` (unix ms). */
  const sending = (owner: string, leaseUntil: number) => {
    const id = enqueue();
    env.core.db.prepare("UPDATE outbox SET status = 'sending', owner = ?, lease_until = ? WHERE id = ?").run(owner, leaseUntil, id);
    return id;
  };
  const row = (id: number) => env.core.db.prepare('SELECT status, owner, lease_until FROM outbox WHERE id = ?').get(id) as { status: string; owner: string | null; lease_until: number | null };
  const pending = { status: 'pending', owner: null, lease_until: null };

  it("orphans are made pending again: an expired lease, a sender that is gone; this sender's rows and live leases are left", () => {
    const [self, live, stale, gone] = [newOwner(), newOwner(), newOwner(), newOwner()];
    const later = Date.now() + 60_000;
    const mine = sending(self, Date.now() - 1000);
    const held = sending(live, later);
    const expired = sending(stale, Date.now() - 1000);
    const abandoned = sending(gone, later);
    retireWorker(gone);
    expect(recoverOrphans(env.core, self)).toBe(2);
    expect(row(expired)).toEqual(pending);
    expect(row(abandoned)).toEqual(pending);
    expect(row(mine)).toMatchObject({ status: 'sending', owner: self });
    expect(row(held)).toEqual({ status: 'sending', owner: live, lease_until: later });
    expect(recoverOrphans(env.core, self)).toBe(0);
  });

  it('a sender that stops gives its rows back; renewing extends its own sending rows only', () => {
    const [a, b] = [newOwner(), newOwner()];
    const soon = Date.now() + 1000;
    const [a1, a2, b1] = [sending(a, soon), sending(a, soon), sending(b, soon)];
    const waiting = enqueue();
    const before = Date.now();
    renewLease(env.core, a, 30_000);
    for (const id of [a1, a2]) {
      expect(row(id).lease_until).toBeGreaterThanOrEqual(before + 30_000);
      expect(row(id).lease_until).toBeLessThanOrEqual(Date.now() + 30_000);
    }
    expect(row(b1).lease_until).toBe(soon);
    expect(row(waiting)).toEqual(pending);
    releaseOwner(env.core, a);
    expect([row(a1), row(a2)]).toEqual([pending, pending]);
    expect(row(b1)).toEqual({ status: 'sending', owner: b, lease_until: soon });
    // once stopped, its id counts as gone: a row still naming it is an orphan
    const late = sending(a, Date.now() + 60_000);
    expect(recoverOrphans(env.core, b)).toBe(1);
    expect(row(late)).toEqual(pending);
  });

  it('a sender stopping after its file closed gives nothing back (the next sender takes its rows) and is gone all the same', () => {
    const tmp = tempDir('tel-lease-closed-');
    const core = openCore(join(tmp.dir, 'closed.db'));
    const owner = newOwner();
    try {
      closeCore(core);
      expect(workerIsGone(owner)).toBe(false);
      expect(() => releaseOwner(core, owner)).not.toThrow();
      expect(workerIsGone(owner)).toBe(true);
    } finally {
      tmp.cleanup();
    }
  });
});
