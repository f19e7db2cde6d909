import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { compileValidator, type JsonSchema } from '../../schema/validate.js';
import { unixMsToGregorian } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { getDoc, type StoredDoc } from '../documents/store.js';
import { devicesOwnedBy } from '../documents/owned.js';
import { getUser } from '../users/service.js';

// Presence, as Kazoo's presence servers keep it: who watches what (the SUBSCRIBEs of phones,
// simulated), and the states set by hand (Kazoo's manual_presence document), each sent to the
// watchers of the presence id as a NOTIFY.

/** The states a presence id may be set to by hand. */
export const PRESENCE_STATES = ['confirmed', 'early', 'terminated'];

/** A watcher's subscription to a presence id. */
export interface Subscription {
  presentity: string;
  package: string;
  callId: string;
  /** `user@realm` */
  watcher: string;
  expiresMs: number;
}

/**
 * Keeps a subscription (a phone's SUBSCRIBE), in place of one of the same dialog. The account's
 * expired ones go then: nothing else removes them, and every search and NOTIFY reads past them.
 */
export function subscribe(core: Core, accountId: string, s: Subscription, nowMs: number = Date.now()): void {
  stmt(core.db, 'DELETE FROM presence_subscriptions WHERE account_id = ? AND expires <= ?').run(accountId, nowMs);
  stmt(
    core.db,
    'INSERT OR REPLACE INTO presence_subscriptions (account_id, presentity, package, call_id, watcher, created, expires, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(accountId, s.presentity, s.package, s.callId, s.watcher, nowMs, s.expiresMs, JSON.stringify({ body: 'undefined', reply: 0, sequence: 0 }));
}

interface SubRow {
  presentity: string;
  package: string;
  call_id: string;
  watcher: string;
  created: number;
  expires: number;
  doc: string;
}

/**
 * The subscriptions of the account not yet expired (those of one presence id when `presentity`
 * is given), as Kazoo's presence search answers them: `{subscriptions: {<presentity>:
 * {<package>: {<call id>: {expires, from, notify, stalker, timestamp, version}}}}}`.
 */
export function presenceSearch(core: Core, accountId: string, presentity?: string, nowMs: number = Date.now()): Record<string, unknown> {
  const rows = (
    presentity === undefined
      ? stmt(core.db, 'SELECT * FROM presence_subscriptions WHERE account_id = ? AND expires > ? ORDER BY presentity, package, call_id').all(accountId, nowMs)
      : stmt(core.db, 'SELECT * FROM presence_subscriptions WHERE account_id = ? AND presentity = ? AND expires > ? ORDER BY package, call_id').all(accountId, presentity, nowMs)
  ) as unknown as SubRow[];
  const subscriptions: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const r of rows) {
    const byPackage = (subscriptions[r.presentity] ??= {});
    (byPackage[r.package] ??= {} as Record<string, unknown>)[r.call_id] = {
      expires: Math.ceil((r.expires - nowMs) / 1000),
      from: r.watcher,
      notify: JSON.parse(r.doc),
      stalker: 'tel',
      timestamp: unixMsToGregorian(r.created),
      version: 1,
    };
  }
  return { subscriptions, timeout: null };
}

/** The presence id of a device: its `presence_id`, else its SIP username. */
export function devicePresenceId(device: StoredDoc): string | undefined {
  const sip = (device.doc.sip ?? {}) as Record<string, unknown>;
  const id = device.doc.presence_id ?? sip.username;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The presence ids a command on a device or a user reaches, as Kazoo finds them: the device's; the
 * user's own `presence_id`, else those of the devices the user owns. A device or user that does
 * not exist is a 404.
 */
export function presenceIdsOf(core: Core, accountId: string, thing: { device?: string; user?: string }): string[] {
  if (thing.device !== undefined) {
    const id = devicePresenceId(getDoc(core, 'device', accountId, thing.device));
    return id ? [id] : [];
  }
  const user = getUser(core, accountId, String(thing.user));
  if (typeof user.doc.presence_id === 'string' && user.doc.presence_id !== '') return [user.doc.presence_id];
  return devicesOwnedBy(core, accountId, user.id).flatMap((d) => devicePresenceId(d) ?? []);
}

/** Sends the watchers of a presence id a NOTIFY of `body` (each answers 200). */
function notifyWatchers(core: Core, accountId: string, presentity: string, body: string): void {
  stmt(
    core.db,
    `UPDATE presence_subscriptions SET doc = json_object('body', ?, 'reply', 200, 'sequence', json_extract(doc, '$.sequence') + 1)
      WHERE account_id = ? AND presentity = ?`,
  ).run(body, accountId, presentity);
}

/** Sets presence ids' states by hand (kept as Kazoo's manual_presence keeps them) and tells their watchers. */
export function setPresence(core: Core, accountId: string, presenceIds: readonly string[], state: string): void {
  if (!PRESENCE_STATES.includes(state)) throw errors.invalidField('state', 'invalid', 'Field must be set to a valid state', { target: 'invalid' });
  transaction(core.db, () => {
    for (const id of presenceIds) {
      stmt(core.db, 'INSERT OR REPLACE INTO manual_presence (account_id, presence_id, state, modified) VALUES (?, ?, ?, ?)').run(accountId, id, state, Date.now());
      notifyWatchers(core, accountId, id, state);
    }
  });
}

/** Resets presence ids: their states set by hand are forgotten, and their watchers told they are idle. */
export function resetPresence(core: Core, accountId: string, presenceIds: readonly string[]): void {
  getAccount(core, accountId);
  transaction(core.db, () => {
    for (const id of presenceIds) {
      stmt(core.db, 'DELETE FROM manual_presence WHERE account_id = ? AND presence_id = ?').run(accountId, id);
      notifyWatchers(core, accountId, id, 'terminated');
    }
  });
}

/** What a command on a device's or a user's presence takes. */
export const PRESENCE_COMMAND: JsonSchema = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['reset', 'set'] },
    state: { type: 'string', enum: PRESENCE_STATES, description: 'the state `set` gives' },
    reset: { type: 'boolean', description: 'deprecated: `true` means `action: reset`' },
  },
};
const validateCommand = compileValidator(PRESENCE_COMMAND);

/**
 * A command on presence ids (those of a device or a user), as Kazoo takes it: `set` a state, or
 * `reset` (also the deprecated `reset: true`); no action is a 400. Answers whether there was
 * anything to send it to.
 */
export function presenceCommand(core: Core, accountId: string, presenceIds: string[], input: Record<string, unknown>): boolean {
  const data = validateCommand(input);
  const action = data.action ?? (data.reset === true ? 'reset' : undefined);
  if (action === undefined) throw errors.invalidField('action', 'invalid', 'Field must be set to a valid action', { target: 'invalid' });
  if (presenceIds.length === 0) return false;
  if (action === 'set') setPresence(core, accountId, presenceIds, String(data.state));
  else resetPresence(core, accountId, presenceIds);
  return true;
}
