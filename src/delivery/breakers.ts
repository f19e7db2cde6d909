import type { Core } from '../core-type.js';
import { stmt } from '../store/db.js';

/** A delivery target's circuit breaker as the sender last recorded it. */
export interface BreakerState {
  /** `open`: the endpoint kept failing and is probed one try at a time; `closed`: full concurrency */
  state: 'open' | 'closed';
  /** consecutive failed tries when it changed */
  failures: number;
  /** unix ms of the change */
  changed: number;
}

/** The consecutive failures a target's breaker was left with (0 when closed or never recorded). */
export function breakerFailures(core: Core, target: string): number {
  const r = stmt(core.db, 'SELECT state, failures FROM delivery_breakers WHERE target = ?').get(target) as
    | { state: string; failures: number }
    | undefined;
  return r?.state === 'open' ? r.failures : 0;
}

/** The breaker of a hook (or queue): open when any of its targets is, else its latest record; undefined when none. */
export function breakerOf(core: Core, sourceId: string): BreakerState | undefined {
  const r = stmt(
    core.db,
    "SELECT state, failures, changed FROM delivery_breakers WHERE source_id = ? ORDER BY state = 'open' DESC, changed DESC LIMIT 1",
  ).get(sourceId) as BreakerState | undefined;
  return r ? { state: r.state, failures: r.failures, changed: r.changed } : undefined;
}

/** How many targets' breakers are open, as their senders last recorded them. */
export function openBreakers(core: Core): number {
  return (stmt(core.db, "SELECT count(*) AS n FROM delivery_breakers WHERE state = 'open'").get() as { n: number }).n;
}
