import type { SQLInputValue } from 'node:sqlite';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { readKeysetPage, windowConditions, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { unixMsToGregorian, type TimeWindow } from '../../util/time.js';

/** One call leg's CDR as it is written: the keys it is listed by, and the document. */
export interface CdrLeg {
  /** `YYYYMM-<call_id>`, the month being the interaction's */
  id: string;
  ownerId?: string;
  authorizingId?: string;
  interactionId: string;
  /** Gregorian seconds */
  interactionTime: number;
  /** `channel_created_time` (unix microseconds) */
  channelTime: number;
  doc: Record<string, unknown>;
}

/** A stored CDR: its id, when it was written (unix ms) and its document. */
export interface StoredCdr {
  id: string;
  created: number;
  doc: Record<string, unknown>;
}

interface Row {
  id: string;
  created: number;
  doc: string;
}

const fromRow = (r: Row): StoredCdr => ({ id: r.id, created: r.created, doc: JSON.parse(r.doc) });

/**
 * The Gregorian second an interaction began: its id's first part (tel's interaction ids are
 * `<Gregorian seconds>-<hex>`). NaN for an id of another form, which no stored CDR has.
 */
export function interactionTime(interactionId: string): number {
  const dash = interactionId.indexOf('-');
  return dash > 0 ? Number(interactionId.slice(0, dash)) : Number.NaN;
}

/**
 * Writes the CDRs of legs that ended, in the caller's transaction. The interaction's first leg
 * (the earliest channel, which its listing shows) is kept marked: `newInteraction` says no leg of
 * it was written before (a call simulated whole), which spares the look-up.
 */
export function writeCdrs(core: Core, accountId: string, legs: readonly CdrLeg[], createdMs: number, newInteraction = false): void {
  if (legs.length === 0) return;
  let first = legs[0];
  for (const l of legs) if (l.channelTime < first.channelTime) first = l;
  let firstIsNew = true;
  if (!newInteraction) {
    const held = stmt(core.db, 'SELECT id, channel_time FROM cdrs WHERE account_id = ? AND first_leg = 1 AND interaction_time = ? AND interaction_id = ?').get(
      accountId,
      first.interactionTime,
      first.interactionId,
    ) as { id: string; channel_time: number } | undefined;
    if (held && held.channel_time <= first.channelTime) firstIsNew = false;
    else if (held) stmt(core.db, 'UPDATE cdrs SET first_leg = 0 WHERE account_id = ? AND id = ?').run(accountId, held.id);
  }
  const insert = stmt(
    core.db,
    `INSERT OR REPLACE INTO cdrs (account_id, id, created, owner_id, authorizing_id, interaction_id, interaction_time, channel_time, first_leg, doc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const l of legs) {
    insert.run(
      accountId,
      l.id,
      createdMs,
      l.ownerId ?? null,
      l.authorizingId ?? null,
      l.interactionId,
      l.interactionTime,
      l.channelTime,
      firstIsNew && l === first ? 1 : 0,
      JSON.stringify(l.doc),
    );
  }
}

/** One CDR of an account, or the 404 Kazoo answers. */
export function getCdr(core: Core, accountId: string, id: string): StoredCdr {
  const r = stmt(core.db, 'SELECT id, created, doc FROM cdrs WHERE account_id = ? AND id = ?').get(accountId, id) as Row | undefined;
  if (!r) throw errors.badIdentifier(id);
  return fromRow(r);
}

/** Whose calls' rows a listing reads (CDRs, channels): the account's, a user's (`owner_id`) or a device's (`authorizing_id`). */
export type CdrScope = { owner: string } | { device: string } | Record<string, never>;

/** The conditions of a scope on a table of calls' rows (its `owner_id` and `authorizing_id` columns). */
export function scopeConditions(scope: CdrScope): { where: string[]; args: string[] } {
  if ('owner' in scope) return { where: ['owner_id = ?'], args: [scope.owner] };
  if ('device' in scope) return { where: ['authorizing_id = ?'], args: [scope.device] };
  return { where: [], args: [] };
}

/**
 * One page of CDRs written in a window, newest first unless `descending` is false, keyed by
 * `[created, id]` along the index of the scope.
 */
export function cdrsPage(
  core: Core,
  accountId: string,
  scope: CdrScope,
  window: Required<TimeWindow>,
  q: PageQuery<CompoundKey>,
  descending: boolean,
): Page<StoredCdr, CompoundKey> {
  const s = scopeConditions(scope);
  const where = ['account_id = ?', ...s.where];
  const args: SQLInputValue[] = [accountId, ...s.args];
  const w = windowConditions('created', window.createdFrom, window.createdTo, q.startKey, descending);
  where.push(...w.where);
  args.push(...w.args);
  return readKeysetPage<Row, StoredCdr>(
    core.db,
    { select: 'SELECT id, created, doc FROM cdrs', where, args, order: ['created', 'id'], descending, keyOf: (r) => [r.created, r.id], item: fromRow },
    q,
  );
}

/**
 * One page of an account's interactions begun in a window (each answered as its first leg),
 * newest first unless `descending` is false, keyed by `[interaction_time, interaction_id]`.
 */
export function interactionsPage(
  core: Core,
  accountId: string,
  window: Required<TimeWindow>,
  q: PageQuery<CompoundKey>,
  descending: boolean,
): Page<StoredCdr, CompoundKey> {
  const w = windowConditions('interaction_time', unixMsToGregorian(window.createdFrom), unixMsToGregorian(window.createdTo), q.startKey, descending);
  return readKeysetPage<Row & { interaction_time: number; interaction_id: string }, StoredCdr>(
    core.db,
    {
      select: 'SELECT id, created, doc, interaction_time, interaction_id FROM cdrs',
      where: ['account_id = ?', 'first_leg = 1', ...w.where],
      args: [accountId, ...w.args],
      order: ['interaction_time', 'interaction_id'],
      descending,
      keyOf: (r) => [r.interaction_time, r.interaction_id],
      item: fromRow,
    },
    q,
  );
}

/** The legs of an interaction, by channel time (latest first unless `descending` is false), keyed by `[channel_time, id]`. */
export function legsPage(
  core: Core,
  accountId: string,
  interactionId: string,
  q: PageQuery<CompoundKey>,
  descending: boolean,
): Page<StoredCdr, CompoundKey> {
  const time = interactionTime(interactionId);
  if (!Number.isSafeInteger(time)) return { items: [] };
  return readKeysetPage<Row & { channel_time: number }, StoredCdr>(
    core.db,
    {
      select: 'SELECT id, created, doc, channel_time FROM cdrs',
      // the first leg and the others, each found by its key in the index (see migration 4302)
      where: ['account_id = ?', 'first_leg IN (1, 0)', 'interaction_time = ?', 'interaction_id = ?'],
      args: [accountId, time, interactionId],
      order: ['channel_time', 'id'],
      descending,
      keyOf: (r) => [r.channel_time, r.id],
      item: fromRow,
    },
    q,
  );
}

/** The interaction a CDR belongs to, or undefined when the account has no such CDR. */
export function interactionOf(core: Core, accountId: string, cdrId: string): string | undefined {
  const r = stmt(core.db, 'SELECT interaction_id FROM cdrs WHERE account_id = ? AND id = ?').get(accountId, cdrId) as { interaction_id: string } | undefined;
  return r?.interaction_id;
}

/** The CDR id of a leg: `YYYYMM-<call_id>`, the month (UTC) of `atMs`. */
export function cdrId(callId: string, atMs: number): string {
  const d = new Date(atMs);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}-${callId}`;
}

/**
 * The legs of the call a leg belongs to (its interaction's), by channel time: what shows a call
 * beside its deliveries. The leg's CDR is looked for in the month of `atMs` and the one before.
 */
export function cdrsOfCall(core: Core, accountId: string, callId: string, atMs: number): StoredCdr[] {
  const monthBefore = new Date(atMs);
  monthBefore.setUTCDate(1);
  monthBefore.setUTCMonth(monthBefore.getUTCMonth() - 1);
  const r = stmt(core.db, 'SELECT interaction_id FROM cdrs WHERE account_id = ? AND id IN (?, ?) LIMIT 1').get(
    accountId,
    cdrId(callId, atMs),
    cdrId(callId, monthBefore.getTime()),
  ) as { interaction_id: string } | undefined;
  return r ? legsPage(core, accountId, r.interaction_id, {}, false).items : [];
}
