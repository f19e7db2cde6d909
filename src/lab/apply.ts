import type { Core } from '../core-type.js';
import { ApiError, describeError } from '../errors.js';
import { transaction } from '../store/db.js';
import type { Change, Plan } from './plan.js';

/** What applying a plan did. */
export interface Applied {
  created: number;
  changed: number;
  removed: number;
  /** how long applying took, all transactions together */
  elapsedMs: number;
  /** the transactions it committed (one unless the plan takes longer than BATCH_MS to write) */
  transactions: number;
  /** the longest any of them held the database's write lock */
  longestMs: number;
}

/**
 * How long one transaction of `tel apply` may hold the write lock before it commits and the next
 * one begins: a server beside it writes in between (the contract's ≈100 ms at most).
 */
export const BATCH_MS = 50;

/** Changes a transaction holds at least: a lab of this many changes or fewer is applied whole or not at all. */
export const MIN_BATCH_CHANGES = 100;

/** A change of the plan failed: its transaction was rolled back (and the ones before it kept, if any). */
export class ApplyFailed extends Error {
  constructor(
    readonly change: Change,
    readonly cause: unknown,
    /** changes committed before the failed one (a large plan commits in batches) */
    readonly applied = 0,
  ) {
    // a revision the plan read that is no longer stored (412), or a write another one beat (409)
    const conflict = cause instanceof ApiError && (cause.status === 412 || cause.status === 409);
    const kept = applied === 0 ? 'nothing was applied' : `the first ${applied} changes were applied`;
    super(
      conflict
        ? `The database changed while the plan was made (${describe(change)}): ${kept}; run tel apply again.`
        : `${describe(change)} failed: ${describeError(cause)} ${kept.charAt(0).toUpperCase()}${kept.slice(1)}.`,
    );
  }
}

/**
 * Runs every change of a plan, in its order, through the services: the `object` events they
 * publish queue their webhook deliveries in the same transaction, for whichever server sends from
 * the file. A plan of MIN_BATCH_CHANGES changes or fewer, or that writes within BATCH_MS, is one
 * transaction; a larger one commits every BATCH_MS (at least MIN_BATCH_CHANGES changes a batch,
 * in its order, so parents are in before their children), and one that fails part way keeps the
 * batches before the failing change: applying the file again finishes the work.
 */
export function applyPlan(core: Core, plan: Plan, opts: { batchMs?: number; minBatch?: number } = {}): Applied {
  const batchMs = opts.batchMs ?? BATCH_MS;
  const minBatch = opts.minBatch ?? MIN_BATCH_CHANGES;
  const started = performance.now();
  let transactions = 0;
  let longestMs = 0;
  let next = 0;
  while (next < plan.changes.length) {
    const from = next;
    const t = performance.now();
    transaction(core.db, () => {
      do {
        const change = plan.changes[next];
        try {
          change.run(core);
        } catch (err) {
          throw new ApplyFailed(change, err, from);
        }
        next++;
      } while (next < plan.changes.length && (next - from < minBatch || performance.now() - t < batchMs));
    });
    transactions++;
    longestMs = Math.max(longestMs, performance.now() - t);
  }
  const count = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  return { created: count('create'), changed: count('change'), removed: count('remove'), elapsedMs: performance.now() - started, transactions, longestMs };
}

const SIGNS = { create: '+', change: '~', remove: '-' } as const;

/** One line of a plan: `+ create user Lab/alice`, `~ change webhook Lab/CRM: retries, uri`. */
export function describe(c: Change): string {
  return `${SIGNS[c.action]} ${c.action} ${c.kind} ${c.name}${c.fields?.length ? `: ${c.fields.join(', ')}` : ''}`;
}

/** `Plan: 2 to create, 1 to change, 0 to remove.` */
export function planSummary(plan: Plan): string {
  const n = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  return `Plan: ${n('create')} to create, ${n('change')} to change, ${n('remove')} to remove.`;
}
