import type { Core } from '../core-type.js';
import { stmt, transaction } from '../store/db.js';
import { newWorkerId, retireWorker, workerIsGone } from '../store/presence.js';

/** A new sender identity, written on the rows it is sending (a worker id, see store/presence.ts). */
export function newOwner(): string {
  return newWorkerId();
}

/** Gives back the rows an owner still holds (they are sent again) and forgets the owner. */
export function releaseOwner(core: Core, owner: string): void {
  if (core.db.isOpen) {
    stmt(core.db, "UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL WHERE owner = ? AND status = 'sending'").run(owner);
  }
  retireWorker(owner);
}

/** Extends the lease on every row an owner is sending. */
export function renewLease(core: Core, owner: string, leaseMs: number): void {
  stmt(core.db, "UPDATE outbox SET lease_until = ? WHERE owner = ? AND status = 'sending'").run(Date.now() + leaseMs, owner);
}

/**
 * Makes rows pending again whose sender is gone: a process of this host that no longer runs
 * (found at once, zombies and reused pids included), or any sender that stopped renewing its
 * lease (another host, or a process that hangs). `self`'s rows are left alone.
 */
export function recoverOrphans(core: Core, self: string): number {
  const now = Date.now();
  const owners = stmt(core.db, "SELECT DISTINCT owner FROM outbox WHERE status = 'sending'").all() as { owner: string | null }[];
  const dead = owners.map((o) => o.owner).filter((o): o is string => o !== null && o !== self && workerIsGone(o));
  const orphans = `status = 'sending' AND owner != ? AND (lease_until < ? OR owner IN (SELECT value FROM json_each(?)))`;
  const args = [self, now, JSON.stringify(dead)] as const;
  // looked for first: a server checks every second, and nearly always finds none (no write, no lock)
  if (!stmt(core.db, `SELECT 1 FROM outbox WHERE ${orphans} LIMIT 1`).get(...args)) return 0;
  return transaction(core.db, () =>
    Number(stmt(core.db, `UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL, modified = ? WHERE ${orphans}`).run(now, ...args).changes),
  );
}
