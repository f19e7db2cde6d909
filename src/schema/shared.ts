import { defineSchema, ref } from './registry.js';

// The schemas several document kinds refer to (accounts, users, devices, resources…), named as
// Kazoo names its schema files so that tel's `{$ref: "caller_id"}` reads as Kazoo's does. The facts
// — fields, types, enums, bounds, patterns, defaults — are Kazoo's; `scripts/kazoo-schemas.mjs`
// compares them with a Kazoo checkout.

export const callerId = defineSchema('caller_id', {
  type: 'object',
  properties: {
    asserted: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 35 },
        number: { type: 'string', maxLength: 35 },
        realm: { type: 'string' },
      },
    },
    emergency: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 35 }, number: { type: 'string', maxLength: 35 } },
    },
    external: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 35 }, number: { type: 'string', maxLength: 35 } },
    },
    internal: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 35 }, number: { type: 'string', maxLength: 35 } },
    },
  },
});

export const callRecordingParameters = defineSchema('call_recording.parameters', {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    format: { type: 'string', enum: ['mp3', 'wav'] },
    record_min_sec: { type: 'integer' },
    record_on_answer: { type: 'boolean' },
    record_on_bridge: { type: 'boolean' },
    record_sample_rate: { type: 'integer' },
    time_limit: { type: 'integer', minimum: 5, maximum: 10800 },
    url: { type: 'string', format: 'uri', 'x-client-url': true },
  },
  additionalProperties: false,
});

export const callRecordingSource = defineSchema('call_recording.source', {
  type: 'object',
  properties: {
    any: ref(callRecordingParameters),
    offnet: ref(callRecordingParameters),
    onnet: ref(callRecordingParameters),
  },
  additionalProperties: false,
});

export const callRecording = defineSchema('call_recording', {
  type: 'object',
  properties: {
    any: ref(callRecordingSource),
    inbound: ref(callRecordingSource),
    outbound: ref(callRecordingSource),
  },
  additionalProperties: false,
});

export const callWaiting = defineSchema('call_waiting', { type: 'object', properties: { enabled: { type: 'boolean' } } });

export const dialplans = defineSchema('dialplans', {
  type: 'object',
  // the keys are patterns tel matches numbers against
  'x-regex-keys': true,
  properties: { system: { type: 'array', items: { type: 'string' } } },
  additionalProperties: {
    type: 'object',
    properties: { description: { type: 'string' }, prefix: { type: 'string' }, suffix: { type: 'string' } },
  },
});

export const formattersFormatOptions = defineSchema('formatters.format_options', {
  type: 'object',
  properties: {
    direction: { type: 'string', enum: ['inbound', 'outbound', 'both'] },
    match_invite_format: { type: 'boolean' },
    prefix: { type: 'string' },
    regex: { type: 'string', format: 'regex', 'x-regex': true },
    strip: { type: 'boolean' },
    suffix: { type: 'string' },
    value: { type: 'string' },
  },
});

export const formatters = defineSchema('formatters', {
  type: 'object',
  patternProperties: {
    '^[A-Za-z0-9_]+$': {
      oneOf: [
        { type: 'array', items: ref(formattersFormatOptions) },
        ref(formattersFormatOptions),
      ],
    },
  },
});

export const notifyCallback = defineSchema('notify.callback', {
  type: 'object',
  properties: {
    attempts: { type: 'integer' },
    disabled: { type: 'boolean' },
    interval_s: { type: 'integer' },
    number: { type: 'string' },
    schedule: { type: 'array', items: { type: 'integer' } },
    timeout_s: { type: 'integer' },
  },
});

export const endpointMedia = defineSchema('endpoint.media', {
  type: 'object',
  properties: {
    audio: {
      type: 'object',
      properties: {
        codecs: {
          type: 'array',
          uniqueItems: true,
          items: {
            type: 'string',
            enum: [
              'OPUS', 'CELT@32000h', 'G7221@32000h', 'G7221@16000h', 'G722', 'speex@32000h', 'speex@16000h', 'PCMU', 'PCMA', 'G729',
              'GSM', 'CELT@48000h', 'CELT@64000h', 'G722_16', 'G722_32', 'CELT_48', 'CELT_64', 'Speex', 'speex',
            ],
          },
        },
      },
      default: {},
    },
    bypass_media: { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['auto', 'false', 'true'] }] },
    encryption: {
      type: 'object',
      properties: {
        enforce_security: { type: 'boolean', default: false },
        methods: { type: 'array', items: { type: 'string', enum: ['zrtp', 'srtp'] }, default: [] },
      },
      default: {},
    },
    fax_option: { type: 'boolean' },
    ignore_early_media: { type: 'boolean' },
    progress_timeout: { type: 'integer' },
    video: {
      type: 'object',
      properties: {
        codecs: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', enum: ['H261', 'H263', 'H264', 'VP8'] },
          default: [],
        },
      },
      default: {},
    },
  },
});

export const profile = defineSchema('profile', {
  type: 'object',
  properties: {
    addresses: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          address: { type: 'string' },
          types: {
            type: 'array',
            items: { enum: ['dom', 'postal', 'intl', 'parcel', 'home', 'work', 'pref'] },
          },
        },
      },
    },
    assistant: { type: 'string' },
    birthday: { type: 'string' },
    nicknames: { type: 'array', items: { type: 'string' } },
    note: { type: 'string' },
    role: { type: 'string' },
    'sort-string': { type: 'string' },
    title: { type: 'string' },
  },
});

export const customSipHeaders = defineSchema('custom_sip_headers', {
  type: 'object',
  patternProperties: { '^[a-zA-z0-9_\\-]+$': { type: 'string' } },
  additionalProperties: false,
});

export const comboKey = defineSchema('devices.combo_key', {
  type: ['object', 'null'],
  oneOf: [
    {
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['parking'] },
        value: {
          oneOf: [
            { type: 'integer', minimum: 1, maximum: 10 },
            { type: 'string', enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] },
            {
              type: 'object',
              required: ['label', 'value'],
              properties: { label: { type: 'string' }, value: { type: 'integer', minimum: 1, maximum: 10 } },
            },
          ],
        },
      },
    },
    {
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['line', 'presence', 'personal_parking', 'speed_dial'] },
        value: {
          oneOf: [
            { type: 'string' },
            {
              type: 'object',
              required: ['label', 'value'],
              properties: { label: { type: 'string' }, value: { type: 'string' } },
            },
          ],
        },
      },
    },
  ],
});

// Fields Kazoo repeats, word for word, in several schemas (not schemas of their own in Kazoo).

/** An endpoint's call forwarding (users, devices). */
export const callForward = {
  type: 'object',
  properties: {
    direct_calls_only: { type: 'boolean', default: false },
    enabled: { type: 'boolean', default: false },
    failover: { type: 'boolean', default: false },
    ignore_early_media: { type: 'boolean', default: true },
    keep_caller_id: { type: 'boolean', default: true },
    number: { type: 'string', maxLength: 35 },
    require_keypress: { type: 'boolean', default: true },
    substitute: { type: 'boolean', default: true },
  },
};

/** Call restrictions by number classification (accounts, users, devices). */
export const callRestriction = {
  type: 'object',
  additionalProperties: { type: 'object', properties: { action: { type: 'string', enum: ['inherit', 'deny'] } } },
  default: {},
};

/** The alert-info headers of internal and external calls (accounts, users, devices). */
export const ringtones = {
  type: 'object',
  properties: {
    external: { type: 'string', maxLength: 256 },
    internal: { type: 'string', maxLength: 256 },
  },
  default: {},
};

/** Custom SIP headers, or `in` and `out` ones (device SIP settings, resource gateways). */
export const customSipHeadersInOut = {
  type: 'object',
  anyOf: [ref(customSipHeaders), { properties: { in: ref(customSipHeaders), out: ref(customSipHeaders) } }],
};
