import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { findDoc, getDoc } from '../documents/store.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import { recordPush } from '../push/pushes.js';
import type { PushKind } from '../push/schema.js';
import { listSubscriptions, type Subscription } from '../push/service.js';
import { findUser } from '../users/service.js';
import { getAccount } from '../accounts/service.js';
import { publishNotification } from '../webhooks/notifications.js';
import type { EmittedEvent } from './registry.js';

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

/**
 * A message left in a voicemail box: the `voicemail_new` notification (for `notifications`
 * webhooks), then `new_voicemail` pushes to the owner's subscriptions that ask for them, or
 * `new_unowned_voicemail` to every subscription of the account that asks when the box has no
 * owner. APNs and FCM are out of reach, so each push lands in the push outbox.
 */
export function simulateVoicemail(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateInput(fields);
  const box = getDoc(core, 'vmbox', accountId, String(input.vmbox_id));
  const ownerId = (input.owner_id as string | undefined) ?? (box.doc.owner_id as string | undefined);
  if (ownerId && !findUser(core, accountId, ownerId)) throw errors.badIdentifier(ownerId);
  const kind: PushKind = ownerId ? 'new_voicemail' : 'new_unowned_voicemail';
  const callId = (input.call_id as string | undefined) ?? newId();
  const voicemailId = `${new Date().toISOString().slice(0, 7).replace('-', '')}-${newId()}`;
  const details: Record<string, unknown> = {
    account_id: accountId,
    vmbox_id: box.id,
    mailbox: box.doc.mailbox,
    ...(ownerId ? { owner_id: ownerId } : {}),
    voicemail_id: voicemailId,
    caller_id_number: input.caller_id_number,
    caller_id_name: input.caller_id_name,
    length: input.length,
    timestamp: nowGregorian(),
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
    voicemail_id: voicemailId,
    voicemail_timestamp: details.timestamp,
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
