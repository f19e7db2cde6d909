import type { Core } from '../core-type.js';
import { ApiError, describeError } from '../errors.js';
import { transaction } from '../store/db.js';
import type { Change, Plan } from './plan.js';

/** What applying a plan did. */
export interface Applied {
  created: number;
  changed: number;
  removed: number;
  /** how long the write transaction held the database's lock */
  elapsedMs: number;
}

/** A change of the plan failed: the transaction was rolled back, nothing was written. */
export class ApplyFailed extends Error {
  constructor(
    readonly change: Change,
    readonly cause: unknown,
  ) {
    const conflict = cause instanceof ApiError && cause.status === 409;
    super(
      conflict
        ? `The database changed while the plan was made (${describe(change)}): nothing was applied; run tel apply again.`
        : `${describe(change)} failed: ${describeError(cause)} Nothing was applied.`,
    );
  }
}

/**
 * Runs every change of a plan, in its order, in one transaction through the services: the
 * `object` events they publish queue their webhook deliveries in the same transaction, for
 * whichever server sends from the file.
 */
export function applyPlan(core: Core, plan: Plan): Applied {
  const started = performance.now();
  transaction(core.db, () => {
    for (const change of plan.changes) {
      try {
        change.run(core);
      } catch (err) {
        throw new ApplyFailed(change, err);
      }
    }
  });
  const count = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  return { created: count('create'), changed: count('change'), removed: count('remove'), elapsedMs: performance.now() - started };
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
