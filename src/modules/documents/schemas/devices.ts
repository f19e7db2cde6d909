import { PRINTABLE } from '../../../schema/formats.js';
import { defineSchema, ref } from '../../../schema/registry.js';
import { metaflows } from '../../../schema/metaflows.js';
import {
  callerId,
  callForward,
  callRecording,
  callRestriction,
  callWaiting,
  comboKey,
  customSipHeadersInOut,
  dialplans,
  endpointMedia,
  formatters,
  ringtones,
} from '../../../schema/shared.js';

/** A device (SIP phone, softphone, …): Kazoo's `devices` schema. */
export const deviceSchema = defineSchema('devices', {
  type: 'object',
  required: ['name'],
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
    device_type: { type: 'string' },
    dial_plan: ref(dialplans),
    do_not_disturb: { type: 'object', properties: { enabled: { type: 'boolean' } } },
    enabled: { type: 'boolean', default: true },
    exclude_from_queues: { type: 'boolean', default: false },
    flags: { type: 'array', items: { type: 'string' } },
    formatters: ref(formatters),
    hotdesk: {
      type: 'object',
      properties: { users: { type: 'object', patternProperties: { '^[a-zA-Z0-9]{32}$': { type: 'object' } } } },
    },
    language: { type: 'string' },
    mac_address: { type: 'string' },
    media: ref(endpointMedia),
    metaflows: ref(metaflows),
    music_on_hold: { type: 'object', properties: { media_id: { type: 'string', maxLength: 2048 } }, default: {} },
    mwi_unsolicited_updates: { type: 'boolean', default: true },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    outbound_flags: {
      oneOf: [
        { type: 'array', items: { type: 'string' } },
        {
          type: 'object',
          properties: {
            dynamic: { type: 'array', items: { type: 'string' } },
            static: { type: 'array', items: { type: 'string' } },
          },
        },
      ],
    },
    owner_id: { type: 'string', minLength: 32, maxLength: 32 },
    presence_id: { type: 'string' },
    provision: {
      type: 'object',
      properties: {
        combo_keys: { type: 'object', patternProperties: { '^[0-9]+$': ref(comboKey) } },
        endpoint_brand: { type: 'string' },
        endpoint_family: { type: 'string' },
        endpoint_model: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        feature_keys: { type: 'object', patternProperties: { '^[0-9]+$': ref(comboKey) } },
        id: { type: 'string' },
      },
    },
    register_overwrite_notify: { type: 'boolean', default: false },
    ringtones,
    sip: {
      type: 'object',
      properties: {
        custom_sip_headers: customSipHeadersInOut,
        custom_sip_interface: { type: 'string' },
        expire_seconds: { type: 'integer', default: 300 },
        forward: { type: 'string' },
        ignore_completed_elsewhere: { type: 'boolean' },
        invite_format: {
          type: 'string',
          enum: ['username', 'npan', '1npan', 'e164', 'route', 'strip_plus', 'contact'],
          default: 'contact',
        },
        ip: { type: 'string' },
        method: { type: 'string', enum: ['password', 'ip'], default: 'password' },
        number: { type: 'string' },
        password: { type: 'string', minLength: 5, maxLength: 32 },
        proxy: { type: 'string' },
        realm: { type: 'string', pattern: '^[.\\w_-]+$', minLength: 4, maxLength: 253 },
        route: { type: 'string' },
        static_invite: { type: 'string' },
        static_route: { type: 'string' },
        transport: { type: 'string' },
        username: { type: 'string', minLength: 2, maxLength: 32 },
      },
      default: {},
    },
    suppress_unregister_notifications: { type: 'boolean', default: false },
    timezone: { type: 'string' },
  },
});

