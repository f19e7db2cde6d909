import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { transaction, stmt } from '../../store/db.js';
import { findDoc, stripServerFields } from '../documents/store.js';
import { newId, nextRevision } from '../../util/ids.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { getAccount } from '../accounts/service.js';
import { validateSubscription } from './schema.js';

/** A stored push notification subscription. */
export interface Subscription {
  id: string;
  accountId: string;
  appName: string;
  deviceId: string;
  mobileDeviceId: string;
  /** the user who registered it, when a user's token did */
  userId?: string;
  doc: Record<string, unknown>;
  rev: string;
  created: number;
  modified: number;
}

interface Row {
  id: string;
  account_id: string;
  app_name: string;
  device_id: string;
  mobile_device_id: string;
  user_id: string | null;
  doc: string;
  rev: string;
  created: number;
  modified: number;
}

function fromRow(r: Row): Subscription {
  return {
    id: r.id,
    accountId: r.account_id,
    appName: r.app_name,
    deviceId: r.device_id,
    mobileDeviceId: r.mobile_device_id,
    userId: r.user_id ?? undefined,
    doc: JSON.parse(r.doc),
    rev: r.rev,
    created: r.created,
    modified: r.modified,
  };
}

/** The public JSON of a subscription: its fields plus `id`. */
export function subscriptionJson(s: Subscription): Record<string, unknown> {
  return { ...s.doc, id: s.id };
}

/** The subscription of a device for an app, or undefined. */
export function findSubscription(core: Core, accountId: string, app: string, deviceId: string): Subscription | undefined {
  const r = stmt(core.db, 'SELECT * FROM push_subscriptions WHERE account_id = ? AND app_name = ? AND device_id = ?')
    .get(accountId, app, deviceId) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** Every subscription of an account, oldest first. */
export function listSubscriptions(core: Core, accountId: string): Subscription[] {
  return (
    stmt(core.db, 'SELECT * FROM push_subscriptions WHERE account_id = ? ORDER BY created, id').all(accountId) as unknown as Row[]
  ).map(fromRow);
}

/** One page of an account's subscriptions, oldest first (newest first when `descending`), keyed by `[created, id]`. */
export function subscriptionsPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending = false): Page<Subscription, CompoundKey> {
  return readKeysetPage<Row, Subscription>(
    core.db,
    { select: 'SELECT * FROM push_subscriptions', where: ['account_id = ?'], args: [accountId], order: ['created', 'id'], descending, keyOf: (r) => [r.created, r.id], item: fromRow },
    q,
  );
}

function requireDevice(core: Core, accountId: string, deviceId: string): void {
  getAccount(core, accountId);
  if (!findDoc(core, 'device', accountId, deviceId)) throw errors.badIdentifier(deviceId);
}

/** The subscription or the 404 `bad_identifier` naming the device (Kazoo's cause). */
export function getSubscription(core: Core, accountId: string, app: string, deviceId: string): Subscription {
  requireDevice(core, accountId, deviceId);
  const s = findSubscription(core, accountId, app, deviceId);
  if (!s) throw errors.badIdentifier(deviceId);
  return s;
}

/** A mobile device belongs to one platform device per app: drop its registrations on the others. */
function releaseMobileDevice(core: Core, accountId: string, app: string, mobileDeviceId: string, deviceId: string): void {
  stmt(core.db, 'DELETE FROM push_subscriptions WHERE account_id = ? AND app_name = ? AND mobile_device_id = ? AND device_id <> ?')
    .run(accountId, app, mobileDeviceId, deviceId);
}

function validated(input: Record<string, unknown>, app: string, deviceId: string): Record<string, unknown> {
  // The path names the app and the device; the body cannot point elsewhere.
  return validateSubscription({ ...stripServerFields(input), app_name: app, device_id: deviceId });
}

/** PUT: subscribes a device of the account for an app; one subscription per device and app. */
export function createSubscription(
  core: Core,
  accountId: string,
  app: string,
  deviceId: string,
  input: Record<string, unknown>,
  userId?: string,
): Subscription {
  return transaction(core.db, () => {
    requireDevice(core, accountId, deviceId);
    if (findSubscription(core, accountId, app, deviceId)) {
      throw errors.invalidField('device_id', 'unique', 'subscription already exists for this device on this app', { value: deviceId });
    }
    const doc = validated(input, app, deviceId);
    releaseMobileDevice(core, accountId, app, String(doc.mobile_device_id), deviceId);
    const body = JSON.stringify(doc);
    const now = Date.now();
    const id = newId();
    stmt(core.db, `INSERT INTO push_subscriptions (id, account_id, app_name, device_id, mobile_device_id, user_id, doc, rev, created, modified)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, accountId, app, deviceId, String(doc.mobile_device_id), userId ?? null, body, nextRevision(undefined, body), now, now);
    return findSubscription(core, accountId, app, deviceId)!;
  });
}

/** POST: changes a subscription (preferences, token); fields not sent keep their values. */
export function updateSubscription(
  core: Core,
  accountId: string,
  app: string,
  deviceId: string,
  input: Record<string, unknown>,
): Subscription {
  return transaction(core.db, () => {
    const current = getSubscription(core, accountId, app, deviceId);
    const doc = validated({ ...current.doc, ...stripServerFields(input) }, app, deviceId);
    releaseMobileDevice(core, accountId, app, String(doc.mobile_device_id), deviceId);
    const body = JSON.stringify(doc);
    stmt(core.db, 'UPDATE push_subscriptions SET mobile_device_id = ?, doc = ?, rev = ?, modified = ? WHERE id = ?')
      .run(String(doc.mobile_device_id), body, nextRevision(current.rev, body), Date.now(), current.id);
    return findSubscription(core, accountId, app, deviceId)!;
  });
}

/** DELETE: removes a subscription; answers what it was. */
export function deleteSubscription(core: Core, accountId: string, app: string, deviceId: string): Subscription {
  return transaction(core.db, () => {
    const current = getSubscription(core, accountId, app, deviceId);
    stmt(core.db, 'DELETE FROM push_subscriptions WHERE id = ?').run(current.id);
    return current;
  });
}

/** Drops the subscriptions of a device that no longer exists. */
export function dropDeviceSubscriptions(core: Core, accountId: string, deviceId: string): void {
  stmt(core.db, 'DELETE FROM push_subscriptions WHERE account_id = ? AND device_id = ?').run(accountId, deviceId);
}
