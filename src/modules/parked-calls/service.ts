import type { Core } from '../../core-type.js';
import { stmt } from '../../store/db.js';

// The parking lot of an account as callflow's park module keeps it (its `parked_calls` document):
// a slot per parked call, holding what retrieving the call needs, until it is retrieved or
// abandoned.

/** The call a slot holds, or undefined when it is free. */
export function parkedCall(core: Core, accountId: string, slot: string): Record<string, unknown> | undefined {
  const r = stmt(core.db, 'SELECT doc FROM parked_calls WHERE account_id = ? AND slot = ?').get(accountId, slot) as { doc: string } | undefined;
  return r ? JSON.parse(r.doc) : undefined;
}

/** Parks a call in a slot (Kazoo's slot fields, keys normalised as its listing answers them). */
export function parkCall(core: Core, accountId: string, slot: string, call: Record<string, unknown>): void {
  stmt(core.db, 'INSERT OR REPLACE INTO parked_calls (account_id, slot, created, doc) VALUES (?, ?, ?, ?)').run(accountId, slot, Date.now(), JSON.stringify(call));
}

/** Frees a slot (its call was retrieved or hung up). */
export function freeSlot(core: Core, accountId: string, slot: string): void {
  stmt(core.db, 'DELETE FROM parked_calls WHERE account_id = ? AND slot = ?').run(accountId, slot);
}

/** The account's occupied slots, as `GET parked_calls` answers them: `{slots: {<slot>: call}}`. */
export function parkedSlots(core: Core, accountId: string): { slots: Record<string, unknown> } {
  const rows = stmt(core.db, 'SELECT slot, doc FROM parked_calls WHERE account_id = ? ORDER BY slot').all(accountId) as { slot: string; doc: string }[];
  return { slots: Object.fromEntries(rows.map((r) => [r.slot, JSON.parse(r.doc)])) };
}
