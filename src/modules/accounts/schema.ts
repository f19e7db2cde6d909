import { compileValidator, PRINTABLE } from '../../schema/validate.js';
import { defineSchema, ref } from '../../schema/registry.js';
import { metaflows } from '../../schema/metaflows.js';
import { callerId, callRecording, callRestriction, callWaiting, dialplans, formatters, notifyCallback, ringtones } from '../../schema/shared.js';

/**
 * An account's document: Kazoo's `accounts` schema, plus the seed's `restrictions` (the account's
 * token restriction template). Fields it does not name are kept, as Kazoo keeps them.
 */
export const accountSchema = defineSchema('accounts', {
  type: 'object',
  required: ['name'],
  properties: {
    call_recording: {
      type: 'object',
      properties: { account: ref(callRecording), endpoint: ref(callRecording) },
      additionalProperties: false,
    },
    call_restriction: callRestriction,
    call_waiting: ref(callWaiting),
    caller_id: ref(callerId),
    caller_id_options: {
      type: 'object',
      properties: {
        outbound_privacy: { type: 'string', enum: ['full', 'name', 'number', 'none'] },
        show_rate: { type: 'boolean' },
      },
    },
    dial_plan: ref(dialplans),
    do_not_disturb: { type: 'object', properties: { enabled: { type: 'boolean' } } },
    enabled: { type: 'boolean', default: true },
    flags: { type: 'array', items: { type: 'string' } },
    formatters: ref(formatters),
    language: { type: 'string' },
    metaflows: ref(metaflows),
    music_on_hold: { type: 'object', properties: { media_id: { type: 'string', maxLength: 2048 } }, default: {} },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    notifications: {
      type: 'object',
      properties: {
        first_occurrence: {
          type: 'object',
          properties: {
            sent_initial_call: { type: 'boolean', default: false },
            sent_initial_registration: { type: 'boolean', default: false },
          },
        },
        low_balance: {
          type: 'object',
          properties: {
            enabled: { type: 'boolean' },
            last_notification: { type: 'integer' },
            sent_low_balance: { type: 'boolean' },
            threshold: { type: 'number' },
          },
        },
      },
    },
    org: { type: 'string' },
    preflow: {
      type: 'object',
      properties: { always: { type: 'string' } },
      additionalProperties: false,
      default: {},
    },
    realm: { type: 'string', pattern: '^[.\\w-]+$', minLength: 4, maxLength: 253 },
    ringtones,
    timezone: { type: 'string', minLength: 5, maxLength: 32 },
    topup: { type: 'object', properties: { threshold: { type: 'number' } } },
    voicemail: {
      type: 'object',
      properties: { notify: { type: 'object', properties: { callback: ref(notifyCallback) } } },
    },
    zones: { type: 'object' },
    restrictions: { type: 'object', description: "the account's token restriction template (the seed's; also at …/token_restrictions)" },
  },
});


export const validateAccount = compileValidator(accountSchema);
