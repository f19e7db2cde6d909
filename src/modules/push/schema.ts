import { compileValidator } from '../../schema/validate.js';

/** Push notification kinds a subscription can ask for. */
export const PUSH_KINDS = ['chat', 'new_unowned_voicemail', 'new_voicemail'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** A push notification subscription (the seed's device-keyed form). */
export const subscriptionSchema = {
  type: 'object',
  required: [
    'app_name',
    'device_id',
    'mobile_device_id',
    'notification_registration_id',
    'notification_type',
    'notification_preferences',
    'platform',
  ],
  properties: {
    app_name: { type: 'string', minLength: 1, maxLength: 256 },
    device_id: { type: 'string', minLength: 1 },
    mobile_device_id: { type: 'string', minLength: 1, maxLength: 256 },
    notification_registration_id: { type: 'string', minLength: 1, maxLength: 4096 },
    notification_type: { type: 'string', enum: ['apns', 'fcm'] },
    notification_preferences: {
      type: 'array',
      items: { type: 'string', enum: [...PUSH_KINDS] },
      uniqueItems: true,
      default: ['chat', 'new_voicemail'],
    },
    platform: { type: 'string', enum: ['android', 'ios'], default: 'android' },
    ui_metadata: { type: 'object' },
  },
};

/** Validates a subscription: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateSubscription = compileValidator(subscriptionSchema);
