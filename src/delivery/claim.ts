import type { Core } from '../core-type.js';
import { stmt, transaction } from '../store/db.js';
import { dropUnsendable } from './kinds.js';
import type { DeliveryRow } from './outbox.js';

/** Who claims rows, and how long they stay theirs without a heartbeat (see lease.ts). */
export interface Claimant {
  owner: string;
  leaseMs: number;
}

/** Due rows of targets not in `skip`, oldest first: their ids and targets only (the claim index). */
export function dueRows(core: Core, skip: string[], limit: number): { id: number; target: string }[] {
  return stmt(
    core.db,
    `SELECT id, target FROM outbox WHERE status = 'pending' AND due_at <= ?
       AND target NOT IN (SELECT value FROM json_each(?)) ORDER BY due_at, id LIMIT ?`,
  ).all(Date.now(), JSON.stringify(skip), limit) as { id: number; target: string }[];
}

/** Claims these rows (those still pending) for `c`; rows their kind no longer wants are cancelled. */
export function claimRows(core: Core, c: Claimant, ids: number[]): DeliveryRow[] {
  const now = Date.now();
  return transaction(core.db, () => {
    const claimed = stmt(
      core.db,
      `UPDATE outbox SET status = 'sending', owner = ?, lease_until = ?, modified = ?
       WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' RETURNING *`,
    ).all(c.owner, now + c.leaseMs, now, JSON.stringify(ids)) as unknown as DeliveryRow[];
    return dropUnsendable(core, claimed, now);
  });
}

/**
 * Claims up to `want` due rows of one target from its own index range, without looking at other
 * targets' rows. `drained` says that fewer were waiting than wanted: nothing of it is left on disk.
 */
export function claimTargetRows(core: Core, c: Claimant, target: string, want: number): { rows: DeliveryRow[]; drained: boolean } {
  const now = Date.now();
  return transaction(core.db, () => {
    const claimed = stmt(
      core.db,
      `UPDATE outbox SET status = 'sending', owner = ?, lease_until = ?, modified = ?
       WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND target = ? AND due_at <= ? ORDER BY due_at, id LIMIT ?)
       RETURNING *`,
    ).all(c.owner, now + c.leaseMs, now, target, now, want) as unknown as DeliveryRow[];
    return { rows: claimed.length > 0 ? dropUnsendable(core, claimed, now) : claimed, drained: claimed.length < want };
  });
}

/** When the next pending row falls due (unix ms), or null when none waits. */
export function nextDueAt(core: Core): number | null {
  return (stmt(core.db, "SELECT MIN(due_at) m FROM outbox WHERE status = 'pending'").get() as { m: number | null }).m;
}
