import type { Core } from '../core-type.js';
import { onSettle, stmt, transaction } from '../store/db.js';
import { groupCommit } from '../store/group-commit.js';
import { dropUnsendable } from './kinds.js';
import type { DeliveryRow } from './outbox.js';

/** Who claims rows, and how long they stay theirs without a heartbeat (see lease.ts). */
export interface Claimant {
  owner: string;
  leaseMs: number;
}

/**
 * The targets that have pending rows, due or not: one seek in the target index each (a skip scan),
 * however many rows wait. A full target's backlog is never walked row by row to find the rows of
 * the others: a dead endpoint's thousands of waiting retries cost the claim one seek.
 */
export function pendingTargets(core: Core): string[] {
  const rows = stmt(
    core.db,
    `WITH RECURSIVE t(target) AS (
       SELECT (SELECT MIN(target) FROM outbox WHERE status = 'pending')
       UNION ALL
       SELECT (SELECT MIN(target) FROM outbox WHERE status = 'pending' AND target > t.target) FROM t WHERE t.target IS NOT NULL)
     SELECT target FROM t WHERE target IS NOT NULL`,
  ).all() as { target: string }[];
  return rows.map((r) => r.target);
}

/** Ids of up to `limit` due rows of one target, oldest first (its own index range). */
export function dueIds(core: Core, target: string, now: number, limit: number): number[] {
  const rows = stmt(
    core.db,
    `SELECT id FROM outbox WHERE status = 'pending' AND target = ? AND due_at <= ? ORDER BY due_at, id LIMIT ?`,
  ).all(target, now, limit) as { id: number }[];
  return rows.map((r) => r.id);
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
    // Stryker disable next-line ConditionalExpression,EqualityOperator: none claimed, none dropped: asking the kinds about no rows answers the same
    return { rows: claimed.length > 0 ? dropUnsendable(core, claimed, now) : claimed, drained: claimed.length < want };
  });
}

/** When the next pending row falls due (unix ms), or null when none waits. */
export function nextDueAt(core: Core): number | null {
  return (stmt(core.db, "SELECT MIN(due_at) m FROM outbox WHERE status = 'pending'").get() as { m: number | null }).m;
}

/**
 * Rows of a deleted source cancelled per transaction: a hook with 100,000 deliveries waiting does
 * not hold the file, nor a server's event loop, for long (a row costs some 5–30 µs).
 */
const CANCEL_BATCH = 500;

/**
 * Cancels the rows of one source (a deleted hook) that wait to be sent: a batch in the caller's
 * transaction, the rest a batch a transaction once it commits (in a server, in the group commits
 * of the next turns). Rows being sent are left to the sender, which checks each row's source just
 * before its try; a batch that cannot be written leaves its rows to be cancelled when they fall due.
 */
export function cancelWaiting(core: Core, sourceId: string): void {
  if (cancelSome(core, sourceId) < CANCEL_BATCH) return;
  onSettle(core.db, { commit: () => cancelRest(core, sourceId) });
}

function cancelRest(core: Core, sourceId: string): void {
  if (!core.serving) {
    while (transaction(core.db, () => cancelSome(core, sourceId)) === CANCEL_BATCH);
    return;
  }
  groupCommit(core.db, () => cancelSome(core, sourceId)).then(
    (n) => {
      if (n === CANCEL_BATCH) setImmediate(() => cancelRest(core, sourceId));
    },
    () => {},
  );
}

/** Cancels up to a batch of a source's waiting rows, found target by target (a source's targets end with its id). */
function cancelSome(core: Core, sourceId: string): number {
  let n = 0;
  const now = Date.now();
  for (const target of pendingTargets(core)) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: the update checks each row's source itself; the target's name only spares it a query
    if (!target.endsWith(` ${sourceId}`)) continue;
    n += Number(
      stmt(
        core.db,
        `UPDATE outbox SET status = 'cancelled', modified = ?
         WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND target = ? LIMIT ?) AND source_id = ?`,
      ).run(now, target, CANCEL_BATCH - n, sourceId).changes,
    );
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a full batch asks the next targets for no rows (LIMIT 0): going on changes none
    if (n >= CANCEL_BATCH) break;
  }
  return n;
}
