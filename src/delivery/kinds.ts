import type { Core } from '../core-type.js';
import { stmt } from '../store/db.js';
import type { DeliveryRow } from './outbox.js';
import type { TryOutcome } from './send.js';

/** What the sender asks of the producer of a kind of deliveries (`webhook`, `queue`, …). */
export interface DeliveryKind {
  /**
   * answers which of the claimed rows may still be sent (e.g. their hook is enabled); the others are
   * cancelled. Asked of every row just before its try: it should answer from a cache.
   */
  sendable?(core: Core, rows: DeliveryRow[]): Set<number>;
  /** a delivery failed for good (its retries are used up); runs in the transaction recording it */
  exhausted?(core: Core, row: DeliveryRow, outcome: TryOutcome, at: number): void;
}


/** Whether a row's kind still wants it sent (the sender asks it of every row just before its try). */
export function stillWanted(core: Core, row: DeliveryRow): boolean {
  const check = core.deliveryKinds[row.kind]?.sendable;
  return !check || check(core, [row]).has(row.id);
}

/** Marks a row its kind no longer wants cancelled (unless another sender took it meanwhile). */
export function cancel(core: Core, row: DeliveryRow, now: number): void {
  stmt(core.db, "UPDATE outbox SET status = 'cancelled', owner = NULL, lease_until = NULL, modified = ? WHERE id = ? AND status = 'sending'").run(now, row.id);
}

/** Cancels claimed rows their kind no longer wants sent (a deleted or disabled hook). */
export function dropUnsendable(core: Core, rows: DeliveryRow[], now: number): DeliveryRow[] {
  const byKind = new Map<string, DeliveryRow[]>();
  for (const r of rows) {
    const list = byKind.get(r.kind);
    if (list) list.push(r);
    else byKind.set(r.kind, [r]);
  }
  const keep: DeliveryRow[] = [];
  for (const [kind, list] of byKind) {
    const check = core.deliveryKinds[kind]?.sendable;
    const ok = check ? check(core, list) : undefined;
    for (const r of list) {
      if (!ok || ok.has(r.id)) keep.push(r);
      else cancel(core, r, now);
    }
  }
  return keep;
}
