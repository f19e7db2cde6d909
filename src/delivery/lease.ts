import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Core } from '../core.js';
import { stmt, transaction } from '../store/db.js';

const liveOwners = new Set<string>();

/** A new sender identity (`host/pid/random`), written on the rows it is sending. */
export function newOwner(): string {
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
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
 * Makes rows pending again whose sender died (a killed process on this host, found at once)
 * or stopped renewing its lease (any host); `self`'s rows are left alone.
 */
export function recoverOrphans(core: Core, self: string): void {
  const now = Date.now();
  const owners = stmt(core.db, "SELECT DISTINCT owner FROM outbox WHERE status = 'sending'").all() as { owner: string | null }[];
  const dead = owners.map((o) => o.owner).filter((o): o is string => o !== null && o !== self && isDeadOwner(o));
  transaction(core.db, () => {
    stmt(
      core.db,
      `UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL, modified = ?
       WHERE status = 'sending' AND owner != ? AND (lease_until < ? OR owner IN (SELECT value FROM json_each(?)))`,
    ).run(now, self, now, JSON.stringify(dead));
  });
}

/** True when an owner names a sender that cannot be running any more. */
function isDeadOwner(other: string): boolean {
  const [host, pidText] = other.split('/');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return !liveOwners.has(other);
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
