import type { Core } from '../../core-type.js';
import { enqueueDelivery } from '../../delivery/outbox.js';
import type { StoredDoc } from '../documents/store.js';

/** The delivery kind of queue notifications in the durable outbox and its attempt records. */
export const QUEUE_KIND = 'queue';

/** The configuration category (Kazoo's ACDC app) and key of the retries a notification gets. */
export const ACDC_CATEGORY = 'acdc';
export const DEFAULT_NOTIFICATION_RETRIES = 2;

/** Queue call states that notify. */
export type CallState = 'pickup' | 'hangup';

/** Where one notification goes: the state's own URL, else `all`; the verb is post or get. */
export interface NotificationTarget {
  url: string;
  method: 'get' | 'post';
}

/** The URL and verb a queue notifies a call state with, or undefined when it has none. */
export function notificationTarget(queue: StoredDoc, state: CallState): NotificationTarget | undefined {
  const n = queue.doc.notifications as Record<string, unknown> | undefined;
  if (!n || typeof n !== 'object') return undefined;
  const url = typeof n[state] === 'string' ? n[state] : n.all;
  if (typeof url !== 'string' || url === '') return undefined;
  // As Kazoo: any method other than post means get.
  return { url, method: String(n.method ?? 'get').toLowerCase() === 'post' ? 'post' : 'get' };
}

/** Retries after a failed try (`acdc` → `notification_retries`, default 2). */
export function notificationRetries(core: Core): number {
  const v = Number(core.config.value(ACDC_CATEGORY, 'notification_retries', DEFAULT_NOTIFICATION_RETRIES));
  return Number.isInteger(v) && v >= 0 ? v : DEFAULT_NOTIFICATION_RETRIES;
}

/**
 * Queues one notification of a queue call through the durable outbox (get: query string,
 * post: JSON body), in the caller's transaction; answers where it goes, or undefined when the
 * queue has no URL for this state.
 */
export function notifyQueue(
  core: Core,
  queue: StoredDoc,
  state: CallState,
  payload: Record<string, unknown>,
): (NotificationTarget & { delivery_id: number }) | undefined {
  const target = notificationTarget(queue, state);
  if (!target) return undefined;
  const deliveryId = enqueueDelivery(core, {
    kind: QUEUE_KIND,
    accountId: queue.accountId,
    sourceId: queue.id,
    sourceName: typeof queue.doc.name === 'string' ? queue.doc.name : undefined,
    eventName: state,
    url: target.url,
    method: target.method,
    format: 'json',
    payload,
    retries: notificationRetries(core),
  });
  return { ...target, delivery_id: deliveryId };
}
