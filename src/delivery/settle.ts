import type { Core } from '../core-type.js';
import { stmt } from '../store/db.js';
import { recordAttempt } from './attempts.js';
import type { DeliveryRow } from './outbox.js';
import type { TryOutcome } from './send.js';
import { retryAfterMs, retryDelayMs, type DeliverySettings } from './settings.js';
import type { BreakerChange } from './targets.js';
import { Counter, labels } from '../util/metrics.js';

/** Tries recorded by this process, by kind and what became of the delivery (`GET /metrics`). */
export const deliveryTries = new Counter(
  'tel_delivery_tries_total',
  'Delivery tries recorded, by kind (webhook, queue) and outcome: delivered, retrying (failed, retries left), failed (for good).',
);

const outcomeLabels = new Map<string, string>();
function countTry(kind: string, outcome: 'delivered' | 'retrying' | 'failed'): void {
  const key = `${kind} ${outcome}`;
  let l = outcomeLabels.get(key);
  if (l === undefined) outcomeLabels.set(key, (l = labels({ kind, outcome })));
  deliveryTries.inc(l);
}

/** A try that ended, waiting to be recorded. */
export interface FinishedTry {
  row: DeliveryRow;
  outcome: TryOutcome;
  /** when it ended (unix ms) */
  at: number;
  /** the settings its retry is scheduled by */
  settings: DeliverySettings;
}

/**
 * Records finished tries in the caller's transaction: an attempt row each; a failure with
 * retries left goes back to pending, due after its backoff (or the receiver's Retry-After); one
 * without is failed for good and reported to its kind (webhooks count it towards auto-disable);
 * successes are marked delivered together. Breakers that changed state are written too.
 */
export function recordTries(core: Core, tries: FinishedTry[], breakers: BreakerChange[]): void {
  const delivered: number[] = [];
  for (const t of tries) if (settleTry(core, t)) delivered.push(t.row.id);
  // every success ends the same way: one statement for all of them
  stmt(
    core.db,
    "UPDATE outbox SET status = 'delivered', tries = tries + 1, owner = NULL, lease_until = NULL, modified = ? WHERE id IN (SELECT value FROM json_each(?))",
  ).run(Date.now(), JSON.stringify(delivered));
  for (const c of breakers) {
    stmt(
      core.db,
      `INSERT INTO delivery_breakers (target, source_id, state, failures, changed) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(target) DO UPDATE SET source_id = excluded.source_id, state = excluded.state, failures = excluded.failures, changed = excluded.changed`,
    ).run(c.target, c.sourceId, c.state, c.failures, c.at);
  }
}

/** Records one try and schedules what follows; answers true for a success (the caller marks those). */
function settleTry(core: Core, { row, outcome, at, settings }: FinishedTry): boolean {
  const tryNo = row.tries + 1;
  const retriesLeft = Math.max(0, row.retries - row.tries);
  recordAttempt(core, row, outcome, tryNo, retriesLeft, at);
  countTry(row.kind, outcome.ok ? 'delivered' : retriesLeft > 0 ? 'retrying' : 'failed');
  if (outcome.ok) return true;
  if (retriesLeft > 0) {
    const delay = retryAfterMs(outcome.retryAfter, settings, at) ?? retryDelayMs(settings, tryNo);
    stmt(core.db, "UPDATE outbox SET status = 'pending', tries = ?, due_at = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(
      tryNo,
      at + delay,
      at,
      row.id,
    );
  } else {
    stmt(core.db, "UPDATE outbox SET status = 'failed', tries = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(tryNo, at, row.id);
    core.deliveryKinds[row.kind]?.exhausted?.(core, row, outcome, at);
  }
  return false;
}
