import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { keysetPage, pageLimit, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { stripServerFields } from '../documents/store.js';
import { newId } from '../../util/ids.js';
import { nowGregorian, unixMsToGregorian } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import { validateAlert } from './schema.js';

/** A stored alert. */
export interface Alert {
  id: string;
  doc: Record<string, unknown>;
  created: number;
}

interface Row {
  id: string;
  doc: string;
  created: number;
}

const fromRow = (r: Row): Alert => ({ id: r.id, doc: JSON.parse(r.doc), created: r.created });

/** The whole alert: its document, `id`, and `created` in Gregorian seconds. */
export function alertJson(a: Alert): Record<string, unknown> {
  return { ...a.doc, id: a.id, created: unixMsToGregorian(a.created) };
}

/** Creating and removing alerts needs a super-duper admin (Kazoo lets any caller remove one). */
export function checkAlertsWrite(actor: Actor): void {
  if (!actor.isSuperduper) throw errors.forbidden('alerts are created and removed by a super-duper admin');
}

/** `PUT …/alerts`: a new alert for the audiences in its `to`. */
export function createAlert(core: Core, input: Record<string, unknown>): Alert {
  const doc = validateAlert(stripServerFields(input));
  const alert: Alert = { id: newId(), doc, created: Date.now() };
  stmt(core.db, 'INSERT INTO alerts (id, doc, created) VALUES (?, ?, ?)').run(alert.id, JSON.stringify(doc), alert.created);
  return alert;
}

/**
 * The `to` entries a caller of an account is in, as `type|value` keys: everyone's, the account's
 * (all, its users, the caller's user), resellers' when it is one, admins' when the caller is one,
 * and those of the accounts above it addressed to their descendants.
 */
export function audienceKeys(core: Core, accountId: string, actor: Actor): Set<string> {
  const account = getAccount(core, accountId);
  const groups = ['all', 'users'];
  if (isAccountAdmin(core, actor)) groups.push('admins');
  const keys = new Set<string>();
  for (const group of groups) {
    keys.add(`all|${group}`);
    keys.add(`${accountId}|${group}`);
    if (account.reseller) keys.add(`resellers|${group}`);
    for (const ancestor of account.tree) keys.add(`descendants|${ancestor},${group}`);
  }
  if (actor.ownerId) keys.add(`${accountId}|${actor.ownerId}`);
  return keys;
}

function addressedTo(alert: Alert, keys: Set<string>): boolean {
  const to = (alert.doc.to ?? []) as { type: string; value: string | string[] }[];
  return to.some((t) => keys.has(`${t.type}|${Array.isArray(t.value) ? t.value.join(',') : t.value}`));
}

/** Audiences one statement merges: SQLite takes at most 500 terms in a compound SELECT. */
const AUDIENCES_A_STATEMENT = 200;

/**
 * The SQL of one page of the alerts of `n` audiences: a range of `alert_audiences` for each, in
 * its order, merged by SQLite (a UNION, which also drops an alert addressed to two of them) and
 * read only as far as the page needs; the alerts' documents joined to the page alone.
 */
function alertsPageSql(n: number, from: boolean): string {
  const arm = `SELECT created, alert_id FROM alert_audiences WHERE audience = ?${from ? ' AND (created, alert_id) <= (?, ?)' : ''} AND (expires IS NULL OR expires >= ?)`;
  return `SELECT p.created AS created, p.alert_id AS id, a.doc AS doc
    FROM (${Array(n).fill(arm).join(' UNION ')} ORDER BY 1 DESC, 2 DESC LIMIT ?) p JOIN alerts a ON a.id = p.alert_id
    ORDER BY p.created DESC, p.alert_id DESC`;
}

/**
 * `GET …/alerts`: a page of the unexpired alerts addressed to `audiences` (`audienceKeys`), newest
 * first as Kazoo lists them, keyed by `[created, id]`. An expired alert still in a range is read
 * and passed over.
 */
export function alertsPage(core: Core, audiences: readonly string[], q: PageQuery<CompoundKey>, now = nowGregorian()): Page<Alert, CompoundKey> {
  let rows: Row[] = [];
  for (let i = 0; i < audiences.length; i += AUDIENCES_A_STATEMENT) {
    const some = audiences.slice(i, i + AUDIENCES_A_STATEMENT);
    const args = some.flatMap((audience) => [audience, ...(q.startKey ?? []), now]);
    rows.push(...(stmt(core.db, alertsPageSql(some.length, q.startKey !== undefined)).all(...args, pageLimit(q)) as unknown as Row[]));
  }
  if (audiences.length > AUDIENCES_A_STATEMENT) {
    // several statements (an account hundreds of levels deep): their pages merged here, an alert
    // two of them answered once (in key order, its copies are neighbours)
    rows.sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    rows = rows.filter((r, i) => i === 0 || r.id !== rows[i - 1].id);
  }
  return keysetPage(rows.map(fromRow), q, (a) => [a.created, a.id]);
}

/** An alert as the listing shows it: without its audiences, and clearable (Kazoo's). */
export function alertSummary(a: Alert): Record<string, unknown> {
  const { to: _to, ...shown } = alertJson(a);
  return { ...shown, clearable: true };
}

/** `GET …/alerts/{id}`: an alert addressed to the caller (any, for a super-duper admin), or the 404. */
export function getAlert(core: Core, accountId: string, actor: Actor, id: string): Alert {
  const r = stmt(core.db, 'SELECT * FROM alerts WHERE id = ?').get(id) as Row | undefined;
  const alert = r && fromRow(r);
  if (!alert || (!actor.isSuperduper && !addressedTo(alert, audienceKeys(core, accountId, actor)))) throw errors.badIdentifier(id);
  return alert;
}

/** `DELETE …/alerts/{id}`: removes the alert for everyone; answers it. */
export function deleteAlert(core: Core, accountId: string, actor: Actor, id: string): Alert {
  const alert = getAlert(core, accountId, actor, id);
  stmt(core.db, 'DELETE FROM alerts WHERE id = ?').run(id);
  return alert;
}
