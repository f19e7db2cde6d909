import { PRINTABLE } from '../../../schema/formats.js';
import { defineSchema, ref } from '../../../schema/registry.js';
import { notifyCallback } from '../../../schema/shared.js';

/** A voicemail box: Kazoo's `vmboxes` schema. */
export const vmboxSchema = defineSchema('vmboxes', {
  type: 'object',
  required: ['mailbox', 'name'],
  properties: {
    announcement_only: { type: 'boolean', default: false },
    check_if_owner: { type: 'boolean', default: true },
    delete_after_notify: { type: 'boolean', default: false },
    flags: { type: 'array', items: { type: 'string' } },
    include_message_on_notify: { type: 'boolean', default: true },
    include_transcription_on_notify: { type: 'boolean', default: true },
    is_setup: { type: 'boolean', default: false },
    is_voicemail_ff_rw_enabled: { type: 'boolean', default: false },
    mailbox: { type: 'string', minLength: 1, maxLength: 30 },
    media: {
      type: 'object',
      properties: { unavailable: { type: 'string', minLength: 32, maxLength: 32 } },
      default: {},
    },
    media_extension: { type: 'string', enum: ['mp3', 'mp4', 'wav'], default: 'mp3' },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    not_configurable: { type: 'boolean', default: false },
    notify: { type: 'object', properties: { callback: ref(notifyCallback) } },
    notify_email_addresses: { type: 'array', items: { type: 'string', format: 'email' }, default: [] },
    oldest_message_first: { type: 'boolean', default: false },
    operator_number: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
    owner_id: { type: 'string', minLength: 32, maxLength: 32 },
    pin: { type: 'string', minLength: 4, maxLength: 6 },
    require_pin: { type: 'boolean', default: false },
    save_after_notify: { type: 'boolean', default: false },
    seek_duration_ms: { type: 'integer', minimum: 0, default: 10000 },
    skip_envelope: { type: 'boolean', default: false },
    skip_greeting: { type: 'boolean', default: false },
    skip_instructions: { type: 'boolean', default: false },
    timezone: { type: 'string', minLength: 5, maxLength: 32 },
    transcribe: { type: 'boolean', default: false },
  },
});

