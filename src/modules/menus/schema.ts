import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/** A prompt or `false` for none (a menu's exit, invalid and transfer media). */
const mediaOrFalse = { oneOf: [{ type: 'boolean' }, { type: 'string', minLength: 3, maxLength: 2048 }] };

/** An IVR menu: Kazoo's `menus` schema. */
export const menuSchema = defineSchema('menus', {
  type: 'object',
  required: ['name'],
  properties: {
    allow_record_from_offnet: { type: 'boolean', default: false },
    flags: { type: 'array', items: { type: 'string' } },
    hunt: { type: 'boolean', default: true },
    hunt_allow: { type: 'string', minLength: 1, maxLength: 256 },
    hunt_deny: { type: 'string', minLength: 1, maxLength: 256 },
    interdigit_timeout: { type: 'integer', minimum: 1, maximum: 10000 },
    max_extension_length: { type: 'integer', minimum: 1, maximum: 6, default: 4 },
    media: {
      type: 'object',
      properties: {
        exit_media: mediaOrFalse,
        greeting: { type: 'string', minLength: 3, maxLength: 2048 },
        invalid_media: mediaOrFalse,
        transfer_media: mediaOrFalse,
      },
      default: {},
    },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    record_pin: { type: 'string', minLength: 3, maxLength: 6 },
    retries: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    suppress_media: { type: 'boolean', default: false },
    timeout: { type: 'integer', minimum: 1, maximum: 60000 },
  },
});
