import type { SQLInputValue } from 'node:sqlite';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import type { Call, Leg } from './calls.js';
import { scopeConditions, type CdrScope } from '../cdrs/store.js';

/** A leg still up, with the call it belongs to. */
export interface LiveLeg {
  call: Call;
  leg: Leg;
  /** when the leg's row was written (unix ms) */
  created: number;
}

interface Row {
  uuid: string;
  created: number;
  doc: string;
}

function fromRow(r: Row): LiveLeg {
  const call = JSON.parse(r.doc) as Call;
  const leg = call.legs.find((l) => l.callId === r.uuid);
  if (!leg) throw new Error(`the channel ${r.uuid} is not a leg of its call`);
  return { call, leg, created: r.created };
}

/**
 * Keeps a call's legs as channels: each leg a row holding the whole call (a call has two or three
 * legs), in place of those the call had when it `changed`. A leg id another call of the account
 * holds is a 400.
 */
export function saveCall(core: Core, call: Call, createdMs: number = Date.now(), changed = false): void {
  const callId = call.id;
  if (changed) dropCall(core, call);
  const doc = JSON.stringify(call);
  const insert = stmt(
    core.db,
    'INSERT OR IGNORE INTO channels (account_id, uuid, call_id, owner_id, authorizing_id, created, doc) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const leg of call.legs) {
    const r = insert.run(call.accountId, leg.callId, callId, (call.base.owner_id as string) ?? null, (call.base.authorizing_id as string) ?? null, createdMs, doc);
    if (r.changes === 0) throw errors.invalidField('call_id', 'unique', 'A call in progress in the account has this call id', { value: leg.callId });
  }
}

/** Forgets a call's channels (it ended). */
export function dropCall(core: Core, call: Call): void {
  stmt(core.db, 'DELETE FROM channels WHERE account_id = ? AND call_id = ?').run(call.accountId, call.id);
}

/** A leg of the account still up, or undefined. */
export function findChannel(core: Core, accountId: string, uuid: string): LiveLeg | undefined {
  const r = stmt(core.db, 'SELECT uuid, created, doc FROM channels WHERE account_id = ? AND uuid = ?').get(accountId, uuid) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** A leg of the account still up, or the 404 Kazoo answers. */
export function getChannel(core: Core, accountId: string, uuid: string): LiveLeg {
  const found = findChannel(core, accountId, uuid);
  if (!found) throw errors.badIdentifier(uuid);
  return found;
}

/** One page of the legs up in the account (oldest first), keyed by `[created, uuid]`. */
export function channelsPage(core: Core, accountId: string, scope: CdrScope, q: PageQuery<CompoundKey>, descending = false): Page<LiveLeg, CompoundKey> {
  const s = scopeConditions(scope);
  const where = ['account_id = ?', ...s.where];
  const args: SQLInputValue[] = [accountId, ...s.args];
  return readKeysetPage<Row, LiveLeg>(
    core.db,
    { select: 'SELECT uuid, created, doc FROM channels', where, args, order: ['created', 'uuid'], descending, keyOf: (r) => [r.created, r.uuid], item: fromRow },
    q,
  );
}
