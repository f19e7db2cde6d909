import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
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
function audienceKeys(core: Core, accountId: string, actor: Actor): Set<string> {
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

function expired(alert: Alert): boolean {
  const at = alert.doc.expiration_date;
  return typeof at === 'number' && at < nowGregorian();
}

/** `GET …/alerts`: the unexpired alerts addressed to this caller of the account, newest first, as Kazoo lists them. */
export function listAlerts(core: Core, accountId: string, actor: Actor): Record<string, unknown>[] {
  const keys = audienceKeys(core, accountId, actor);
  const rows = stmt(core.db, 'SELECT * FROM alerts ORDER BY created DESC, id').all() as unknown as Row[];
  return rows
    .map(fromRow)
    .filter((a) => !expired(a) && addressedTo(a, keys))
    .map((a) => {
      const { to: _to, ...shown } = alertJson(a);
      return { ...shown, clearable: true };
    });
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
