import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema, ref } from '../../schema/registry.js';
import { metaflows } from '../../schema/metaflows.js';
import {
  callerId,
  callForward,
  callRecording,
  callRestriction,
  callWaiting,
  dialplans,
  endpointMedia,
  formatters,
  notifyCallback,
  profile,
  ringtones,
} from '../../schema/shared.js';

/**
 * A user of an account: Kazoo's `users` schema (first and last name required; no username or
 * password needed — a user without a password cannot log in until one is set). `password` is
 * write-only: tel keeps salted hashes of it, never the password.
 */
export const userSchema = defineSchema('users', {
  type: 'object',
  required: ['first_name', 'last_name'],
  properties: {
    call_forward: callForward,
    call_recording: ref(callRecording),
    call_restriction: callRestriction,
    call_waiting: ref(callWaiting),
    caller_id: ref(callerId),
    caller_id_options: {
      type: 'object',
      properties: { outbound_privacy: { type: 'string', enum: ['full', 'name', 'number', 'none'] } },
    },
    contact_list: { type: 'object', properties: { exclude: { type: 'boolean' } }, default: {} },
    dial_plan: ref(dialplans),
    directories: { type: 'object' },
    do_not_disturb: { type: 'object', properties: { enabled: { type: 'boolean' } } },
    email: { type: 'string', format: 'email', minLength: 3, maxLength: 254 },
    enabled: { type: 'boolean', default: true },
    feature_level: { type: 'string' },
    first_name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    flags: { type: 'array', items: { type: 'string' } },
    formatters: { ...ref(formatters), type: 'object' },
    hotdesk: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean', default: false },
        id: { type: 'string', maxLength: 15 },
        keep_logged_in_elsewhere: { type: 'boolean', default: false },
        pin: { type: 'string', minLength: 4, maxLength: 15 },
        require_pin: { type: 'boolean', default: false },
      },
      default: {},
    },
    language: { type: 'string' },
    last_name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    media: ref(endpointMedia),
    metaflows: ref(metaflows),
    music_on_hold: { type: 'object', properties: { media_id: { type: 'string', maxLength: 128 } }, default: {} },
    password: { type: 'string' },
    presence_id: { type: 'string' },
    priv_level: { type: 'string', enum: ['user', 'admin'], default: 'user' },
    profile: ref(profile),
    pronounced_name: { type: 'object', properties: { media_id: { type: 'string', maxLength: 128 } } },
    require_password_update: { type: 'boolean', default: false },
    ringtones,
    timezone: { type: 'string' },
    username: { type: 'string', pattern: '^([+@.\\w_-]+)$', minLength: 1, maxLength: 256 },
    verified: { type: 'boolean', default: false },
    vm_to_email_enabled: { type: 'boolean', default: true },
    voicemail: {
      type: 'object',
      properties: { notify: { type: 'object', properties: { callback: ref(notifyCallback) } } },
    },
  },
});

