import { randomBytes } from 'node:crypto';
import type { Core } from '../core-type.js';
import { stmt, transaction } from '../store/db.js';
import { isGone, processIdentity } from '../util/process-identity.js';

const liveOwners = new Set<string>();

/**
 * A new sender identity, written on the rows it is sending: the process's identity (host, pid
 * and start time, see util/process-identity.ts) and a random part for each sender of a process.
 */
export function newOwner(): string {
  const owner = `${processIdentity()}/${randomBytes(4).toString('hex')}`;
  liveOwners.add(owner);
  return owner;
}

/** Gives back the rows an owner still holds (they are sent again) and forgets the owner. */
export function releaseOwner(core: Core, owner: string): void {
  if (core.db.isOpen) {
    stmt(core.db, "UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL WHERE owner = ? AND status = 'sending'").run(owner);
  }
  liveOwners.delete(owner);
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
  const dead = owners.map((o) => o.owner).filter((o): o is string => o !== null && o !== self && isDeadOwner(o));
  return transaction(core.db, () =>
    Number(
      stmt(
        core.db,
        `UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL, modified = ?
         WHERE status = 'sending' AND owner != ? AND (lease_until < ? OR owner IN (SELECT value FROM json_each(?)))`,
      ).run(now, self, now, JSON.stringify(dead)).changes,
    ),
  );
}

/** True when an owner names a sender that cannot be running any more. */
function isDeadOwner(other: string): boolean {
  const identity = other.slice(0, other.lastIndexOf('/'));
  // a sender of this very process that stopped (tests run several in one process)
  if (identity === processIdentity()) return !liveOwners.has(other);
  return isGone(identity);
}
