import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/** A group of endpoints (users, devices) rung or paged together: Kazoo's `groups` schema. */
export const groupSchema = defineSchema('groups', {
  type: 'object',
  required: ['endpoints', 'name'],
  properties: {
    endpoints: { type: 'object', default: {} },
    flags: { type: 'array', items: { type: 'string' } },
    music_on_hold: { type: 'object', properties: { media_id: { type: 'string', maxLength: 128 } }, default: {} },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
  },
});
