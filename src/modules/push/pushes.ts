import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import type { PushKind } from './schema.js';
import type { Subscription } from './service.js';

// The pushes tel would have sent to APNs or FCM (out of reach on a lab box), recorded and listed at
// `GET /v2/accounts/{id}/push_notifications` (the contract's "push outbox"; nothing is sent from it).

/** What a push says, before it is shaped for APNs or FCM. */
export interface PushContent {
  title: string;
  body: string;
  /** custom keys delivered to the app (event, account_id, vmbox_id, …) */
  data: Record<string, unknown>;
}

/**
 * The request APNs or FCM would receive for a subscription. `platform` matters only with FCM:
 * iOS apps on FCM need a `notification` block to show an alert, Android apps get data only.
 */
export function pushRequest(sub: Subscription, content: PushContent): Record<string, unknown> {
  const token = String(sub.doc.notification_registration_id);
  if (sub.doc.notification_type === 'apns') {
    return {
      device_token: token,
      headers: { 'apns-topic': sub.appName, 'apns-push-type': 'alert', 'apns-priority': '10' },
      body: { aps: { alert: { title: content.title, body: content.body }, sound: 'default' }, ...content.data },
    };
  }
  const body: Record<string, unknown> = { to: token, priority: 'high', data: content.data };
  if (sub.doc.platform === 'ios') body.notification = { title: content.title, body: content.body, sound: 'default' };
  return { body };
}

interface Row {
  doc: string;
}

/** Records in the push outbox what would be sent to one subscription; answers the record. */
export function recordPush(core: Core, sub: Subscription, kind: PushKind, content: PushContent): Record<string, unknown> {
  const id = newId();
  const record: Record<string, unknown> = {
    id,
    event: kind,
    account_id: sub.accountId,
    subscription_id: sub.id,
    app_name: sub.appName,
    device_id: sub.deviceId,
    mobile_device_id: sub.mobileDeviceId,
    notification_type: sub.doc.notification_type,
    platform: sub.doc.platform,
    notification_registration_id: sub.doc.notification_registration_id,
    title: content.title,
    body: content.body,
    request: pushRequest(sub, content),
    timestamp: nowGregorian(),
  };
  stmt(core.db, 'INSERT INTO push_notifications (id, account_id, doc, created) VALUES (?, ?, ?, ?)')
    .run(id, sub.accountId, JSON.stringify(record), Date.now());
  return record;
}

/** One page of an account's push outbox, newest first (oldest first unless `newestFirst`), keyed by `[created, id]`. */
export function pushesPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, newestFirst = true): Page<Record<string, unknown>, CompoundKey> {
  return readKeysetPage<{ id: string; created: number; doc: string }, Record<string, unknown>>(
    core.db,
    {
      select: 'SELECT id, created, doc FROM push_notifications',
      where: ['account_id = ?'],
      args: [accountId],
      order: ['created', 'id'],
      descending: newestFirst,
      keyOf: (r) => [r.created, r.id],
      item: (r) => JSON.parse(r.doc) as Record<string, unknown>,
    },
    q,
  );
}

/** One recorded push or the 404. */
export function getPush(core: Core, accountId: string, id: string): Record<string, unknown> {
  const r = stmt(core.db, 'SELECT doc FROM push_notifications WHERE account_id = ? AND id = ?').get(accountId, id) as Row | undefined;
  if (!r) throw errors.badIdentifier(id);
  return JSON.parse(r.doc);
}
