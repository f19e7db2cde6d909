import { defineSchema, ref } from './registry.js';
import { callflowsAction } from './callflow-actions.js';

// Metaflows: what a caller's DTMF does during a call (accounts, users and devices carry them). As a
// callflow action, a metaflow is `{module, data, children}` whose `data` the schema
// `metaflows.<module>` validates; the facts are those of Kazoo's schemas.

export const metaflow = defineSchema('metaflow', {
  type: 'object',
  'x-module': 'metaflows',
  required: ['module'],
  properties: {
    children: { type: 'object', patternProperties: { '.+': { $ref: 'metaflow' } } },
    data: { type: 'object', default: {} },
    module: { type: 'string', minLength: 1, maxLength: 64 },
  },
});

export const metaflows = defineSchema('metaflows', {
  type: 'object',
  properties: {
    binding_digit: {
      type: 'string',
      enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '*', '#'],
      minLength: 1,
      maxLength: 1,
      default: '*',
    },
    digit_timeout: { type: 'integer', minimum: 0 },
    listen_on: { type: 'string', enum: ['both', 'self', 'peer'] },
    numbers: {
      type: 'object',
      patternProperties: { '^[0-9]+$': ref(metaflow) },
      additionalProperties: false,
    },
    patterns: {
      type: 'object',
      'x-regex-keys': true,
      patternProperties: { '.+': ref(metaflow) },
      additionalProperties: false,
    },
  },
});

export const metaflowsAudioLevel = defineSchema('metaflows.audio_level', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['start', 'stop'] },
    level: { type: 'integer', minimum: -4, maximum: 4 },
    mode: { type: 'string', enum: ['read', 'write'] },
  },
});

export const metaflowsBreak = defineSchema('metaflows.break', { type: 'object', properties: {} });

export const metaflowsCallflow = defineSchema('metaflows.callflow', {
  type: 'object',
  properties: {
    captures: { type: 'string' },
    collected: { type: 'string' },
    flow: { ...ref(callflowsAction), type: 'object' },
    id: { type: 'string' },
  },
});

export const metaflowsHangup = defineSchema('metaflows.hangup', { type: 'object', properties: {} });

export const metaflowsHold = defineSchema('metaflows.hold', {
  type: 'object',
  properties: {
    moh_aleg: { type: 'string' },
    moh_bleg: { type: 'string' },
    unhold_key: { type: 'string', default: '1' },
  },
});

export const metaflowsHoldControl = defineSchema('metaflows.hold_control', {
  type: 'object',
  properties: { action: { type: 'string', enum: ['hold', 'unhold', 'toggle'], default: 'toggle' } },
});

export const metaflowsIntercept = defineSchema('metaflows.intercept', {
  type: 'object',
  properties: {
    auto_answer: { type: 'boolean', default: false },
    can_call_self: { type: 'boolean', default: true },
    target_id: { type: 'string' },
    target_type: { type: 'string', enum: ['device', 'user', 'number'] },
    unbridged_only: { type: 'boolean', default: true },
  },
});

export const metaflowsMove = defineSchema('metaflows.move', {
  type: 'object',
  properties: {
    auto_answer: { type: 'boolean', default: false },
    can_call_self: { type: 'boolean', default: true },
    device_id: { type: 'string' },
    dial_strategy: { type: 'string', default: 'simultaneous' },
    owner_id: { type: 'string' },
  },
});

export const metaflowsPivot = defineSchema('metaflows.pivot', {
  type: 'object',
  required: ['voice_url'],
  properties: {
    cdr_url: { type: 'string', pattern: '^https?://' },
    debug: { type: 'boolean', default: false },
    method: { type: 'string', enum: ['get', 'post', 'GET', 'POST'], default: 'get' },
    req_format: { type: 'string', enum: ['kazoo', 'twiml'], default: 'kazoo' },
    voice_url: { type: 'string', pattern: '^https?://', 'x-client-url': true },
  },
});

export const metaflowsPlay = defineSchema('metaflows.play', {
  type: 'object',
  properties: {
    id: { type: 'string' },
    leg: { type: 'string', enum: ['self', 'peer', 'both'], default: 'both' },
  },
});

export const metaflowsRecordCall = defineSchema('metaflows.record_call', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['mask', 'unmask', 'start', 'stop', 'toggle'], default: 'toggle' },
    format: { type: 'string', enum: ['mp3', 'wav'] },
    label: { type: 'string' },
    media_name: { type: 'string' },
    method: { type: 'string', enum: ['put', 'post'] },
    origin: { type: 'string' },
    record_min_sec: { type: 'integer' },
    record_on_answer: { type: 'boolean', default: false },
    record_on_bridge: { type: 'boolean', default: false },
    record_sample_rate: { type: 'integer' },
    time_limit: { type: 'integer' },
    url: { type: 'string', 'x-client-url': true },
  },
});

export const metaflowsRelate = defineSchema('metaflows.relate', {
  type: 'object',
  required: ['participant_id', 'other_participant', 'conference_id'],
  properties: {
    conference_id: { type: 'string' },
    other_participant: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    participant_id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    relationship: { type: 'string', enum: ['deaf', 'clear', 'mute'], default: 'clear' },
  },
});

export const metaflowsResume = defineSchema('metaflows.resume', { type: 'object', properties: {} });

export const metaflowsSay = defineSchema('metaflows.say', {
  type: 'object',
  properties: {
    gender: { type: 'string', enum: ['feminine', 'masculine', 'neuter'] },
    language: { type: 'string' },
    method: { type: 'string', enum: ['pronounced', 'iterated', 'counted'] },
    text: { type: 'string' },
    type: {
      type: 'string',
      enum: [
        'account_number', 'currency', 'current_date', 'current_date_time', 'current_time', 'email_address',
        'ip_address', 'items', 'messages', 'name_phonetic', 'name_spelled', 'number', 'persons',
        'postal_address', 'short_date_time', 'telephone_extension', 'telephone_number', 'time_measurement',
        'url',
      ],
    },
  },
});

export const metaflowsSoundTouch = defineSchema('metaflows.sound_touch', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['start', 'stop'] },
    adjust_in_octaves: { type: 'number', minimum: -1, maximum: 1, default: 0 },
    adjust_in_semitones: { type: 'number', minimum: -14, maximum: 14, default: 0 },
    hook_dtmf: { type: 'boolean', default: false },
    pitch: { type: 'number', minimum: 1, default: 1 },
    rate: { type: 'number', minimum: 1, default: 1 },
    sending_leg: { type: 'boolean', default: false },
    tempo: { type: 'number', minimum: 1, default: 1 },
  },
});

export const metaflowsTransfer = defineSchema('metaflows.transfer', {
  type: 'object',
  properties: {
    captures: { type: 'array', items: { type: 'string' }, default: ['no_match'] },
    leg: { type: 'string' },
    target: { type: 'string' },
    timeout: { type: 'integer' },
    transfer_type: { type: 'string', enum: ['attended', 'blind'], default: 'blind' },
  },
});

export const metaflowsTts = defineSchema('metaflows.tts', {
  type: 'object',
  properties: {
    engine: { type: 'string', default: 'flite' },
    language: { type: 'string' },
    leg: { type: 'string', default: 'self' },
    terminators: {
      type: 'array',
      items: { type: 'string', enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
    text: { type: 'string' },
    voice: { type: 'string', default: 'female' },
  },
});

