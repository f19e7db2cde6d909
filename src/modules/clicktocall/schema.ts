import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema, ref } from '../../schema/registry.js';
import { customSipHeaders } from '../../schema/shared.js';

/** A click-to-call: a call between an extension and a contact, placed by a request: Kazoo's `clicktocall` schema. */
export const clicktocallSchema = defineSchema('clicktocall', {
  type: 'object',
  required: ['extension', 'name'],
  properties: {
    auth_required: { type: 'boolean', default: true },
    bypass_media: { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['auto', 'false', 'true'] }] },
    caller_id_number: { type: 'string' },
    custom_application_vars: { type: 'object', patternProperties: { '[a-zA-Z0-9\\-_]+': { type: 'string' } }, default: {} },
    custom_sip_headers: {
      type: 'object',
      anyOf: [ref(customSipHeaders), { properties: { in: ref(customSipHeaders), out: ref(customSipHeaders) } }],
    },
    dial_first: { type: 'string', enum: ['extension', 'contact'] },
    extension: { type: 'string' },
    media: { type: 'object', properties: { ignore_early_media: { type: 'boolean' } } },
    music_on_hold: { type: 'object', properties: { media_id: { type: 'string', maxLength: 2048 } } },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    outbound_callee_id_name: { type: 'string' },
    outbound_callee_id_number: { type: 'string' },
    presence_id: { type: 'string' },
    ringback: { type: 'string' },
    throttle: { type: 'integer' },
    timeout: { type: 'integer' },
    whitelist: { type: 'array', items: { type: 'string', minLength: 1, 'x-regex': true } },
  },
});
