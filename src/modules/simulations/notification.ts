import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount } from '../accounts/service.js';
import { NOTIFICATION_TYPES, publishNotification } from '../webhooks/notifications.js';
import type { EmittedEvent } from './registry.js';
import { errors, type ValidationErrors } from '../../errors.js';
import type { FieldType } from '../webhooks/notifications.js';

function fits(v: unknown, want: FieldType): boolean {
  if (want === 'integer') return Number.isInteger(v);
  return typeof v === want;
}

/** What the `notification` simulation takes besides `kind`: the notification, and values of its fields. */
export const validateNotification = compileValidator({
  type: 'object',
  required: ['event_name'],
  properties: {
    event_name: { type: 'string', enum: Object.keys(NOTIFICATION_TYPES) },
    fields: {
      type: 'object',
      description: "values of the notification's own fields (the rest are made up for the account)",
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
  },
});

/**
 * A platform notification (a registration, a missed call, a low balance, …) sent to
 * `notifications` hooks with the fields Kazoo gives it; those not given are made up for the
 * account. A field the notification does not have is refused.
 */
export function simulateNotification(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...rest } = data;
  const input = validateNotification(rest);
  const eventName = String(input.event_name);
  const type = NOTIFICATION_TYPES[eventName];
  const given = (input.fields ?? {}) as Record<string, unknown>;
  const errs: ValidationErrors = {};
  for (const [k, v] of Object.entries(given)) {
    const want = type.fields[k];
    if (!want) errs[`fields.${k}`] = { additionalProperties: { message: `${eventName} has no such field`, target: Object.keys(type.fields) } };
    else if (!fits(v, want)) errs[`fields.${k}`] = { type: { message: `Value did not match type(s): ${want}`, target: want, value: v } };
  }
  if (Object.keys(errs).length > 0) throw errors.validation(errs);
  const account = getAccount(core, accountId);
  const payload = publishNotification(core, accountId, eventName, { ...type.sample(account), ...given });
  return [{ event: 'notifications', ...payload }];
}
