import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { SUBTREE_IDS_SQL } from '../accounts/tree-index.js';
import { checkRevision, newId, nextRevision } from '../../util/ids.js';
import { withinBounds } from './schema.js';

/** A stored webhook. */
export interface Hook {
  id: string;
  accountId: string;
  /** the public document (name, uri, hook, http_verb, …, and fields tel does not know) */
  doc: Record<string, unknown>;
  disableReason: string | null;
  /** the secret a rotation replaced, still signing beside the new one until `until` (unix ms) */
  previousSecret: { secret: string; until: number } | null;
  rev: string;
  created: number;
  modified: number;
}

export interface HookRow {
  id: string;
  account_id: string;
  hook: string;
  enabled: number;
  include_subaccounts: number;
  doc: string;
  disable_reason: string | null;
  previous_secret: string | null;
  previous_secret_until: number | null;
  rev: string;
  created: number;
  modified: number;
}

/** Turns a row into a Hook (its document read with today's bounds: `withinBounds`). */
export function hookFromRow(r: HookRow): Hook {
  return {
    id: r.id,
    accountId: r.account_id,
    doc: withinBounds(JSON.parse(r.doc)),
    disableReason: r.disable_reason,
    previousSecret: r.previous_secret ? { secret: r.previous_secret, until: r.previous_secret_until ?? 0 } : null,
    rev: r.rev,
    created: r.created,
    modified: r.modified,
  };
}

/** The row cache of enabled hooks by event type and account (match.ts); every write of a hook clears it. */
export const HOOKS_BY_EVENT_CACHE = 'hooks-by-event';

/** The row cache of whether a hook exists and is enabled, by id (enabledHookIds); cleared with the other. */
const HOOK_ENABLED_CACHE = 'hook-enabled';

function forgetMatching(core: Core): void {
  rowCache(core.db, HOOKS_BY_EVENT_CACHE).clear();
  rowCache(core.db, HOOK_ENABLED_CACHE).clear();
}

/** One hook of an account, or undefined. */
export function findHook(core: Core, accountId: string, id: string): Hook | undefined {
  const r = stmt(core.db, 'SELECT * FROM webhooks WHERE id = ? AND account_id = ?').get(id, accountId) as HookRow | undefined;
  return r ? hookFromRow(r) : undefined;
}

/** One hook of an account or the 404 `bad_identifier`. */
export function getHook(core: Core, accountId: string, id: string): Hook {
  const h = findHook(core, accountId, id);
  if (!h) throw errors.badIdentifier(id);
  return h;
}

/** Every hook of an account, oldest first. */
export function listHooks(core: Core, accountId: string): Hook[] {
  return (stmt(core.db, 'SELECT * FROM webhooks WHERE account_id = ? ORDER BY created, id').all(accountId) as unknown as HookRow[]).map(
    hookFromRow,
  );
}

/** Every hook of an account and of every account below it, by account, oldest first: one read (`tel apply` plans with it). */
export function listHooksUnder(core: Core, accountId: string): Hook[] {
  return (stmt(core.db, `SELECT * FROM webhooks WHERE account_id IN (${SUBTREE_IDS_SQL}) ORDER BY account_id, created, id`).all(accountId) as unknown as HookRow[]).map(
    hookFromRow,
  );
}

/** One page of an account's hooks, oldest first (newest first when `descending`), keyed by `[created, id]`. */
export function hooksPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending = false): Page<Hook, CompoundKey> {
  return readKeysetPage<HookRow, Hook>(
    core.db,
    { select: 'SELECT * FROM webhooks', where: ['account_id = ?'], args: [accountId], order: ['created', 'id'], descending, keyOf: (r) => [r.created, r.id], item: hookFromRow },
    q,
  );
}

/** Stores a new hook (the document already validated). */
export function insertHook(core: Core, accountId: string, doc: Record<string, unknown>, id: string = newId()): Hook {
  const now = Date.now();
  const body = JSON.stringify(doc);
  const rev = nextRevision(undefined, body);
  stmt(core.db, `INSERT INTO webhooks (id, account_id, hook, enabled, include_subaccounts, doc, disable_reason, rev, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    )
    .run(id, accountId, String(doc.hook), doc.enabled === false ? 0 : 1, doc.include_subaccounts === true ? 1 : 0, body, rev, now, now);
  forgetMatching(core);
  return { id, accountId, doc, disableReason: null, previousSecret: null, rev, created: now, modified: now };
}

/** Replaces a hook's document (and its disable reason), checking the revision: a stale `ifMatch` is a 412, a change since `current` was read a 409. */
export function writeHook(core: Core, current: Hook, doc: Record<string, unknown>, disableReason: string | null, ifMatch?: string): Hook {
  checkRevision(current.rev, ifMatch);
  const body = JSON.stringify(doc);
  const rev = nextRevision(current.rev, body);
  const now = Date.now();
  const res = stmt(core.db, `UPDATE webhooks SET hook = ?, enabled = ?, include_subaccounts = ?, doc = ?, disable_reason = ?, rev = ?, modified = ?
       WHERE id = ? AND rev = ?`,
    )
    .run(
      String(doc.hook),
      doc.enabled === false ? 0 : 1,
      doc.include_subaccounts === true ? 1 : 0,
      body,
      disableReason,
      rev,
      now,
      current.id,
      current.rev,
    );
  if (res.changes === 0) throw errors.conflict();
  forgetMatching(core);
  return { ...current, doc, disableReason, rev, modified: now };
}

/** Records the secret a rotation replaced and until when it keeps signing (null: none). */
export function setPreviousSecret(core: Core, hookId: string, previous: Hook['previousSecret']): void {
  stmt(core.db, 'UPDATE webhooks SET previous_secret = ?, previous_secret_until = ? WHERE id = ?').run(
    previous?.secret ?? null,
    previous?.until ?? null,
    hookId,
  );
  forgetMatching(core);
}

/** One hook by id alone (whatever its account), or undefined. */
export function findHookById(core: Core, id: string): Hook | undefined {
  const r = stmt(core.db, 'SELECT * FROM webhooks WHERE id = ?').get(id) as HookRow | undefined;
  return r ? hookFromRow(r) : undefined;
}

/** Deletes a hook for good. */
export function removeHook(core: Core, current: Hook, ifMatch?: string): void {
  checkRevision(current.rev, ifMatch);
  const res = stmt(core.db, 'DELETE FROM webhooks WHERE id = ? AND rev = ?').run(current.id, current.rev);
  if (res.changes === 0) throw errors.conflict();
  forgetMatching(core);
}

/**
 * Which of these hooks exist and are enabled. Read through a row cache: the sender asks it of
 * every delivery just before its try, thousands a second.
 */
export function enabledHookIds(core: Core, ids: string[]): Set<string> {
  const cache = rowCache<boolean>(core.db, HOOK_ENABLED_CACHE);
  const enabled = new Set<string>();
  for (const id of ids) {
    const on = cache.get(id, () => (stmt(core.db, 'SELECT enabled FROM webhooks WHERE id = ?').get(id) as { enabled: number } | undefined)?.enabled === 1);
    if (on) enabled.add(id);
  }
  return enabled;
}

/**
 * Turns back on every hook the disabler turned off in an account, or in it and every account
 * below it: one update over the (few) auto-disabled hooks, whose accounts are looked up in the
 * tree, never a read of every account's hooks. Answers the ids of the hooks it turned on.
 */
export function reenableAutoDisabledHooks(core: Core, accountId: string, descendants: boolean): string[] {
  const below = descendants ? ' OR EXISTS (SELECT 1 FROM account_tree t WHERE t.account_id = webhooks.account_id AND t.ancestor_id = ?2)' : '';
  const now = Date.now();
  const rows = stmt(
    core.db,
    `UPDATE webhooks SET enabled = 1, doc = json_set(doc, '$.enabled', json('true')), disable_reason = NULL, modified = ?1
     WHERE disable_reason IS NOT NULL AND enabled = 0 AND (account_id = ?2${below}) RETURNING id, doc, rev`,
  ).all(now, accountId) as { id: string; doc: string; rev: string }[];
  // each changed document gets its next revision, as every write gives one
  const setRev = stmt(core.db, 'UPDATE webhooks SET rev = ? WHERE id = ?');
  for (const r of rows) setRev.run(nextRevision(r.rev, r.doc), r.id);
  if (rows.length > 0) forgetMatching(core);
  return rows.map((r) => r.id);
}

/** Turns a hook off on behalf of the disabler, recording why. */
export function autoDisableHook(core: Core, hookId: string, reason: string): boolean {
  const h = findHookById(core, hookId);
  if (!h || h.doc.enabled === false) return false;
  writeHook(core, h, { ...h.doc, enabled: false }, reason);
  return true;
}
