import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { findDoc, getDoc } from '../documents/store.js';
import { newId } from '../../util/ids.js';
import { recordPush } from '../push/pushes.js';
import type { PushKind } from '../push/schema.js';
import { listSubscriptions, type Subscription } from '../push/service.js';
import { findUser } from '../users/service.js';
import { getAccount } from '../accounts/service.js';
import { publishNotification } from '../webhooks/notifications.js';
import type { EmittedEvent } from './registry.js';
import { leaveMessage } from '../voicemail/service.js';
import { folderCounts } from '../voicemail/store.js';

/** What the `voicemail` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateInput = compileValidator({
  type: 'object',
  required: ['vmbox_id'],
  properties: {
    vmbox_id: { type: 'string', minLength: 1 },
    owner_id: { type: 'string', minLength: 1 },
    caller_id_number: { type: 'string', default: '+14155550123' },
    caller_id_name: { type: 'string', default: 'Caller' },
    /** seconds */
    length: { type: 'integer', minimum: 0, default: 12 },
    call_id: { type: 'string', minLength: 1 },
  },
});

/** The user a subscription speaks for: its device's owner, else the user who registered it. */
function subscriber(core: Core, sub: Subscription): string | undefined {
  const device = findDoc(core, 'device', sub.accountId, sub.deviceId);
  return (device?.doc.owner_id as string | undefined) ?? sub.userId;
}

/** How many new and saved messages a box holds before a caller is told it is full (Kazoo's `callflow` `voicemail.max_message_count` default). */
export const MAILBOX_DEFAULT_SIZE = 100;

/**
 * A message left in a voicemail box: the message itself (listed by `…/vmboxes/{id}/messages`),
 * the `voicemail_new` notification (for `notifications` webhooks), then `new_voicemail` pushes to
 * the owner's subscriptions that ask for them, or `new_unowned_voicemail` to every subscription
 * of the account that asks when the box has no owner. APNs and FCM are out of reach, so each push
 * lands in the push outbox. A box that holds its 100 messages already takes none: the caller
 * hears it is full, and `voicemail_full` is notified instead (Kazoo's cf_voicemail).
 */
export function simulateVoicemail(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateInput(fields);
  const box = getDoc(core, 'vmbox', accountId, String(input.vmbox_id));
  const ownerId = (input.owner_id as string | undefined) ?? (box.doc.owner_id as string | undefined);
  if (ownerId && !findUser(core, accountId, ownerId)) throw errors.badIdentifier(ownerId);
  const counts = folderCounts(core, accountId, [box.id]).get(box.id);
  const held = counts ? counts.new + counts.saved : 0;
  if (held >= MAILBOX_DEFAULT_SIZE) {
    const full = publishNotification(core, accountId, 'voicemail_full', { voicemail_box: box.id, max_message_count: MAILBOX_DEFAULT_SIZE, message_count: held });
    return [{ event: 'notifications', ...full }];
  }
  const kind: PushKind = ownerId ? 'new_voicemail' : 'new_unowned_voicemail';
  const callId = (input.call_id as string | undefined) ?? newId();
  const message = leaveMessage(core, box, {
    callerIdNumber: String(input.caller_id_number),
    callerIdName: String(input.caller_id_name),
    lengthMs: Number(input.length) * 1000,
    callId,
  });
  const details: Record<string, unknown> = {
    account_id: accountId,
    vmbox_id: box.id,
    mailbox: box.doc.mailbox,
    ...(ownerId ? { owner_id: ownerId } : {}),
    voicemail_id: message.id,
    caller_id_number: input.caller_id_number,
    caller_id_name: input.caller_id_name,
    length: input.length,
    timestamp: message.timestamp,
  };
  const targets = listSubscriptions(core, accountId).filter(
    (s) =>
      (s.doc.notification_preferences as string[]).includes(kind) && (kind === 'new_unowned_voicemail' || subscriber(core, s) === ownerId),
  );
  // What the platform tells `notifications` webhooks: Kazoo's voicemail_new notification.
  const account = getAccount(core, accountId);
  const notification = publishNotification(core, accountId, 'voicemail_new', {
    from_realm: account.realm,
    from_user: input.caller_id_number,
    to_realm: account.realm,
    to_user: box.doc.mailbox,
    voicemail_box: box.id,
    voicemail_id: message.id,
    voicemail_timestamp: message.timestamp,
    call_id: callId,
    caller_id_name: input.caller_id_name,
    caller_id_number: input.caller_id_number,
    voicemail_length: Number(input.length) * 1000,
  });
  const caller = String(input.caller_id_name || input.caller_id_number);
  const pushes = targets.map((s) =>
    recordPush(core, s, kind, {
      title: 'New voicemail',
      body: `From ${caller} in ${String(box.doc.name)}`,
      data: { event: kind, call_id: callId, ...details },
    }),
  );
  return [
    { event: 'notifications', ...notification },
    {
      event: kind,
      call_id: callId,
      ...details,
      pushes: pushes.map((p) => ({ id: p.id, app_name: p.app_name, device_id: p.device_id, notification_type: p.notification_type })),
    },
  ];
}
