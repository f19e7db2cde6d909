import { PRINTABLE } from './formats.js';
import { defineSchema, ref } from './registry.js';
import { customSipHeadersInOut } from './shared.js';

// A callflow's `flow` is a tree of actions, `{module, data, children}`; each module's `data` has a
// schema of its own, named `callflows.<module>` as in Kazoo, and a module without one is refused.
// The facts (fields, types, enums, bounds, defaults) are those of Kazoo's schemas, module by
// module (`scripts/kazoo-schemas.mjs` compares them with a Kazoo checkout); `conferences` (the
// conferences module's documents) is here because the conference modules' `config` is one.

export const callflowsAction = defineSchema('callflows.action', {
  type: 'object',
  'x-module': 'callflows',
  required: ['data', 'module'],
  properties: {
    children: { type: 'object', patternProperties: { '.+': { $ref: 'callflows.action' } } },
    data: { type: 'object', default: {} },
    module: { type: 'string', minLength: 1, maxLength: 64 },
  },
});

export const conferencesProfile = defineSchema('conferences.profile', {
  type: 'object',
  properties: {
    'alone-sound': { type: 'string' },
    'announce-count': { type: 'integer' },
    'caller-controls': { type: 'string' },
    'comfort-noise': { type: 'integer', minimum: 0, maximum: 10000 },
    'energy-level': { type: 'integer', minimum: 0, maximum: 1800 },
    'enter-sound': { type: 'string' },
    'exit-sound': { type: 'string' },
    interval: { type: 'integer', minimum: 10, maximum: 120 },
    'locked-sound': { type: 'string' },
    'max-members': { type: 'integer', minimum: 2 },
    'max-members-sound': { type: 'string' },
    'moderator-controls': { type: 'string' },
    'moh-sound': { type: 'string' },
    'muted-sound': { type: 'string' },
    rate: { type: 'integer', enum: [8000, 12000, 16000, 24000, 32000, 44100, 48000] },
    'unmuted-sound': { type: 'string' },
  },
});

export const conferences = defineSchema('conferences', {
  type: 'object',
  properties: {
    bridge_password: { type: 'string' },
    bridge_username: { type: 'string' },
    caller_controls: { type: 'string' },
    conference_numbers: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', pattern: '^[0-9]+$' },
      default: [],
    },
    controls: { type: 'object' },
    domain: { type: 'string' },
    flags: { type: 'array', items: { type: 'string' } },
    focus: { type: 'string' },
    language: { type: 'string' },
    max_members_media: { type: 'string' },
    max_participants: { type: 'integer' },
    member: {
      type: 'object',
      properties: {
        join_deaf: { type: 'boolean', default: false },
        join_muted: { type: 'boolean', default: true },
        numbers: {
          type: 'array',
          minItems: 0,
          uniqueItems: true,
          items: { type: 'string', pattern: '^[0-9]+$' },
          default: [],
        },
        pins: { type: 'array', items: { type: 'string', pattern: '^[0-9]+$' }, default: [] },
        play_entry_prompt: { type: 'boolean' },
      },
      default: {},
    },
    moderator: {
      type: 'object',
      properties: {
        join_deaf: { type: 'boolean', default: false },
        join_muted: { type: 'boolean', default: false },
        numbers: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', pattern: '^[0-9]+$' },
          default: [],
        },
        pins: { type: 'array', items: { type: 'string', pattern: '^[0-9]+$' }, default: [] },
      },
      default: {},
    },
    moderator_controls: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    owner_id: { type: 'string', minLength: 32, maxLength: 32 },
    play_entry_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    play_exit_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    play_name: { type: 'boolean', default: false },
    play_welcome: { type: 'boolean' },
    profile: { ...ref(conferencesProfile), type: 'object' },
    profile_name: { type: 'string' },
    require_moderator: { type: 'boolean' },
    wait_for_moderator: { type: 'boolean' },
  },
});

export const callflowsAcdcAgent = defineSchema('callflows.acdc_agent', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['login', 'logout', 'paused', 'resume'] },
    presence_id: { type: 'string' },
    presence_state: {
      type: 'string',
      enum: ['early', 'confirmed', 'terminated', 'red_flash', 'red_solid', 'green'],
    },
    skip_module: { type: 'boolean' },
    timeout: { type: 'integer' },
  },
});

export const callflowsAcdcMember = defineSchema('callflows.acdc_member', {
  type: 'object',
  properties: { id: { type: 'string' }, priority: { type: 'integer' }, skip_module: { type: 'boolean' } },
});

export const callflowsAcdcQueue = defineSchema('callflows.acdc_queue', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['login', 'logout'] },
    id: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsAcdcWaitTime = defineSchema('callflows.acdc_wait_time', {
  type: 'object',
  properties: { id: { type: 'string' }, skip_module: { type: 'boolean' }, window: { type: 'integer' } },
});

export const callflowsAfterBridge = defineSchema('callflows.after_bridge', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['park', 'transfer', 'hangup'] },
    data: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsAnswer = defineSchema('callflows.answer', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsPlay = defineSchema('callflows.play', {
  type: 'object',
  properties: {
    answer: { type: 'boolean' },
    endless_playback: { type: 'boolean', default: false },
    id: { type: 'string' },
    loop_count: { type: 'integer', minimum: 1 },
    skip_module: { type: 'boolean' },
    terminators: {
      type: 'array',
      items: { type: 'string' },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
  },
});

export const callflowsAudioMacroTone = defineSchema('callflows.audio_macro.tone', {
  type: 'object',
  properties: {
    duration_off: { type: 'integer' },
    duration_on: { type: 'integer' },
    frequencies: { type: 'array', items: { type: 'integer' } },
    repeat: { type: 'integer' },
    volume: { type: 'integer', minimum: 0, maximum: 100 },
  },
});

export const callflowsAudioMacroPrompt = defineSchema('callflows.audio_macro.prompt', {
  type: 'object',
  properties: {
    id: { type: 'string' },
    language: { type: 'string' },
    terminators: {
      type: 'array',
      items: { type: 'string' },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
  },
});

export const callflowsAudioMacroSay = defineSchema('callflows.audio_macro.say', {
  type: 'object',
  properties: {
    gender: { type: 'string', enum: ['masculine', 'feminine', 'neuter'] },
    language: { type: 'string' },
    method: { type: 'string', enum: ['none', 'pronounced', 'iterated', 'counted'] },
    terminators: {
      type: 'array',
      items: { type: 'string' },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
    text: { type: 'string' },
    type: {
      type: 'string',
      enum: [
        'number', 'items', 'persons', 'messages', 'currency', 'time_measurement', 'current_date',
        'current_time', 'current_date_time', 'telephone_number', 'telephone_extension', 'url', 'ip_address',
        'e-mail_address', 'postal_address', 'account_number', 'name_spelled', 'name_phonetic',
        'short_date_time',
      ],
    },
  },
});

export const callflowsTts = defineSchema('callflows.tts', {
  type: 'object',
  required: ['text'],
  properties: {
    endless_playback: { type: 'boolean' },
    engine: { type: 'string', enum: ['flite', 'google', 'ispeech', 'voicefabric'] },
    language: { type: 'string' },
    skip_module: { type: 'boolean' },
    terminators: {
      type: 'array',
      items: { type: 'string' },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
    text: { type: 'string', minLength: 1, maxLength: 1000 },
    voice: { type: 'string', default: 'female' },
  },
});

export const callflowsAudioMacro = defineSchema('callflows.audio_macro', {
  type: 'object',
  properties: {
    language: { type: 'string' },
    macros: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['macro'],
        properties: { macro: { type: 'string', enum: ['play', 'prompt', 'say', 'tts', 'tone'] } },
        oneOf: [
          { ...ref(callflowsPlay), properties: { macro: { type: 'string', enum: ['play'] } } },
          {
            ...ref(callflowsAudioMacroTone),
            properties: { macro: { type: 'string', enum: ['tone'] } },
          },
          {
            ...ref(callflowsAudioMacroPrompt),
            properties: { macro: { type: 'string', enum: ['prompt'] } },
          },
          {
            ...ref(callflowsAudioMacroSay),
            properties: { macro: { type: 'string', enum: ['say'] } },
          },
          { ...ref(callflowsTts), properties: { macro: { type: 'string', enum: ['tts'] } } },
        ],
      },
      // Kazoo's `default: []` is not applied: the empty list fails its own minItems
    },
    skip_module: { type: 'boolean' },
    terminators: {
      type: 'array',
      items: { type: 'string' },
      default: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
    },
  },
});

export const callflowsBranchBnumber = defineSchema('callflows.branch_bnumber', {
  type: 'object',
  properties: {
    hunt: { type: 'boolean', default: false },
    hunt_allow: { type: 'string', 'x-regex': true },
    hunt_deny: { type: 'string', 'x-regex': true },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsBranchVariable = defineSchema('callflows.branch_variable', {
  type: 'object',
  required: ['variable'],
  properties: {
    scope: {
      type: 'string',
      enum: ['account', 'custom_channel_vars', 'device', 'merged', 'user'],
      default: 'custom_channel_vars',
    },
    skip_module: { type: 'boolean' },
    variable: { type: 'string', default: '' },
  },
});

export const callflowsCallForward = defineSchema('callflows.call_forward', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['activate', 'deactivate', 'update', 'toggle', 'menu'] },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsCallWaiting = defineSchema('callflows.call_waiting', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['activate', 'deactivate', 'toggle'], default: 'toggle' },
    scope: { type: 'string', enum: ['device', 'user'], default: 'device' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsCallflow = defineSchema('callflows.callflow', { type: 'object', properties: { id: { type: 'string' }, skip_module: { type: 'boolean' } } });

export const callflowsCampingFeature = defineSchema('callflows.camping_feature', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsCheckCid = defineSchema('callflows.check_cid', {
  type: 'object',
  properties: {
    caller_id: {
      type: 'object',
      properties: {
        external: { type: 'object', properties: { name: { type: 'string' }, number: { type: 'string' } } },
      },
    },
    regex: { type: 'string', default: '.*', 'x-regex': true },
    skip_module: { type: 'boolean' },
    use_absolute_mode: { type: 'boolean', default: false },
    user_id: { type: 'string' },
  },
});

export const callflowsCidlistmatch = defineSchema('callflows.cidlistmatch', { type: 'object', properties: { id: { type: 'string' }, skip_module: { type: 'boolean' } } });

export const callflowsCollectDtmf = defineSchema('callflows.collect_dtmf', {
  type: 'object',
  properties: {
    collection_name: { type: 'string' },
    interdigit_timeout: { type: 'integer', minimum: 1 },
    max_digits: { type: 'integer', minimum: 1, default: 1 },
    skip_module: { type: 'boolean' },
    terminator: {
      type: 'string',
      enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '#', '*'],
      default: '#',
    },
    terminators: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '#', '*'] },
    },
    timeout: { type: 'integer', minimum: 1, default: 5000 },
  },
});

export const callflowsConference = defineSchema('callflows.conference', {
  type: 'object',
  properties: {
    config: { ...ref(conferences), type: 'object' },
    id: { type: 'string', minLength: 32, maxLength: 32 },
    moderator: { type: 'boolean' },
    play_entry_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    play_exit_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    skip_module: { type: 'boolean' },
    welcome_prompt: {
      type: 'object',
      properties: { media_id: { type: 'string' }, play: { type: 'boolean', default: true } },
    },
  },
});

export const callflowsConferenceFeature = defineSchema('callflows.conference_feature', {
  type: 'object',
  properties: {
    config: { ...ref(conferences), type: 'object' },
    id: { type: 'string', minLength: 32, maxLength: 32 },
    moderator: { type: 'boolean' },
    play_entry_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    play_exit_tone: { oneOf: [{ type: 'boolean' }, { type: 'string' }] },
    skip_module: { type: 'boolean' },
    welcome_prompt: {
      type: 'object',
      properties: { media_id: { type: 'string' }, play: { type: 'boolean', default: true } },
    },
  },
});

export const callflowsDeadAir = defineSchema('callflows.dead_air', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsDevice = defineSchema('callflows.device', {
  type: 'object',
  properties: {
    can_call_self: { type: 'boolean' },
    can_text_self: { type: 'boolean' },
    custom_sip_headers: { type: 'object' },
    delay: { type: 'integer', default: 0 },
    dial_strategy: { type: 'string', enum: ['simultaneous', 'single'], default: 'simultaneous' },
    id: { type: 'string' },
    skip_module: { type: 'boolean' },
    static_invite: { type: 'string' },
    suppress_clid: { type: 'boolean' },
    timeout: { type: 'integer', default: 0 },
  },
});

export const callflowsDirectory = defineSchema('callflows.directory', { type: 'object', properties: { id: { type: 'string' }, skip_module: { type: 'boolean' } } });

export const callflowsDisa = defineSchema('callflows.disa', {
  type: 'object',
  properties: {
    enforce_call_restriction: { type: 'boolean', default: false },
    interdigit: { type: 'integer' },
    max_digits: { type: 'integer', default: 15 },
    pin: { type: 'string', default: '' },
    preconnect_audio: { type: 'string', enum: ['dialtone', 'ringing'], default: 'dialtone' },
    retries: { type: 'integer', default: 3 },
    ring_repeat_count: { type: 'integer', default: 1 },
    skip_module: { type: 'boolean' },
    use_account_caller_id: { type: 'boolean' },
  },
});

export const callflowsDoNotDisturb = defineSchema('callflows.do_not_disturb', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['activate', 'deactivate', 'toggle'] },
    id: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsDynamicCid = defineSchema('callflows.dynamic_cid', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['list', 'lists', 'manual', 'static'] },
    caller_id: { type: 'object', properties: { name: { type: 'string' }, number: { type: 'string' } } },
    enforce_call_restriction: { type: 'boolean', default: true },
    id: { type: 'string' },
    idx_name: { type: 'string' },
    interdigit_timeout: { type: 'integer' },
    max_digits: { type: 'integer' },
    media_id: { type: 'string' },
    min_digits: { type: 'integer' },
    permit_custom_callflow: { type: 'boolean', default: false },
    skip_module: { type: 'boolean' },
    whitelist_regex: { type: 'string', 'x-regex': true },
  },
});

export const callflowsEavesdrop = defineSchema('callflows.eavesdrop', {
  type: 'object',
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    device_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    user_id: { type: 'string' },
  },
});

export const callflowsEavesdropFeature = defineSchema('callflows.eavesdrop_feature', {
  type: 'object',
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    group_id: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsEdr = defineSchema('callflows.edr', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsFaxDetect = defineSchema('callflows.fax_detect', { type: 'object', properties: { duration: { type: 'integer' }, skip_module: { type: 'boolean' } } });

export const callflowsFaxbox = defineSchema('callflows.faxbox', {
  type: 'object',
  properties: {
    faxbox_id: { type: 'string' },
    id: { type: 'string' },
    media: {
      type: 'object',
      properties: {
        fax_option: { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['auto', 'true', 'false'] }] },
      },
    },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsFlushDtmf = defineSchema('callflows.flush_dtmf', {
  type: 'object',
  properties: { collection_name: { type: 'string', default: 'default' }, skip_module: { type: 'boolean' } },
});

export const callflowsFunction = defineSchema('callflows.function', { type: 'object', properties: { id: { type: 'string' }, skip_module: { type: 'boolean' } } });

export const callflowsGroup = defineSchema('callflows.group', {
  type: 'object',
  properties: {
    endpoints: { type: 'array', items: { type: 'string' }, default: [] },
    fail_on_single_reject: { type: 'boolean' },
    id: { type: 'string' },
    ignore_forward: { type: 'boolean', default: true },
    repeats: { type: 'integer', default: 1 },
    ringback: { type: 'string' },
    ringtones: { type: 'object', properties: { external: { type: 'string' }, internal: { type: 'string' } } },
    skip_module: { type: 'boolean' },
    strategy: { type: 'string', enum: ['single', 'simultaneous'], default: 'simultaneous' },
    timeout: { type: 'integer', default: 20 },
  },
});

export const callflowsGroupPickup = defineSchema('callflows.group_pickup', {
  type: 'object',
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    device_id: { type: 'string' },
    group_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    user_id: { type: 'string' },
  },
});

export const callflowsGroupPickupFeature = defineSchema('callflows.group_pickup_feature', {
  type: 'object',
  required: ['type'],
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    device_id: { type: 'string' },
    group_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    type: { type: 'string', enum: ['group', 'user', 'device', 'extension'], default: 'extension' },
    user_id: { type: 'string' },
  },
});

export const callflowsHangup = defineSchema('callflows.hangup', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsHotdesk = defineSchema('callflows.hotdesk', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['logout', 'login', 'toggle', 'bridge'] },
    id: { type: 'string' },
    interdigit_timeout: { type: 'integer' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsIntercept = defineSchema('callflows.intercept', {
  type: 'object',
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    device_id: { type: 'string' },
    group_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    user_id: { type: 'string' },
  },
});

export const callflowsInterceptFeature = defineSchema('callflows.intercept_feature', {
  type: 'object',
  properties: {
    approved_device_id: { type: 'string' },
    approved_group_id: { type: 'string' },
    approved_user_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    type: { type: 'string', enum: ['user', 'device', 'extension'] },
  },
});

export const callflowsIntercom = defineSchema('callflows.intercom', {
  type: 'object',
  properties: { barge_calls: { type: 'boolean' }, skip_module: { type: 'boolean' } },
});

export const callflowsLanguage = defineSchema('callflows.language', {
  type: 'object',
  required: ['language'],
  properties: {
    language: { type: 'string', pattern: '^[A-Za-z]{2}(-[A-Za-z]{2})?$' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsLookupcidname = defineSchema('callflows.lookupcidname', {
  type: 'object',
  required: ['lists'],
  properties: {
    lists: { type: 'array', items: { type: 'string' }, default: [] },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsManualPresence = defineSchema('callflows.manual_presence', {
  type: 'object',
  required: ['presence_id'],
  properties: {
    presence_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    status: { type: 'string', enum: ['idle', 'ringing', 'busy'], default: 'idle' },
  },
});

export const callflowsMenu = defineSchema('callflows.menu', {
  type: 'object',
  properties: {
    id: { type: 'string' },
    interdigit_timeout: { type: 'integer' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsMissedCallAlert = defineSchema('callflows.missed_call_alert', {
  type: 'object',
  required: ['recipients'],
  properties: {
    recipients: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'type'],
        properties: {
          id: {
            oneOf: [
              { type: 'string', format: 'email' },
              { type: 'array', items: { type: 'string', format: 'email' } },
            ],
          },
          type: { type: 'string', enum: ['user', 'email'] },
        },
      },
    },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsMove = defineSchema('callflows.move', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsNomorobo = defineSchema('callflows.nomorobo', {
  type: 'object',
  required: ['username'],
  properties: {
    password: { type: 'string', minLength: 1, maxLength: 1000 },
    skip_module: { type: 'boolean' },
    username: { type: 'string', minLength: 1, maxLength: 1000 },
  },
});

export const callflowsNoop = defineSchema('callflows.noop', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsNotification = defineSchema('callflows.notification', {
  type: 'object',
  required: ['recipients'],
  properties: {
    comments: { type: 'string' },
    notification_media: { type: 'array', items: { type: 'string', enum: ['email', 'sms'] } },
    recipients: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'type'],
        properties: {
          id: {
            oneOf: [
              { type: 'string', format: 'email' },
              { type: 'array', items: { type: 'string', format: 'email' } },
            ],
          },
          type: { type: 'string', enum: ['user', 'email'] },
        },
      },
      default: [],
    },
    send_at: { type: 'string', enum: ['callflow_exec', 'channel_destroy'], default: 'channel_destroy' },
    template_id: { type: 'string' },
  },
});

/** The offnet and resources modules route a call to carriers, with the same data. */
const carrierRoute = () => ({
  type: 'object',
  properties: {
    bypass_e164: { type: 'boolean' },
    caller_id_type: { type: 'string', default: 'external' },
    custom_sip_headers: customSipHeadersInOut,
    do_not_normalize: { type: 'boolean' },
    dynamic_flags: { type: 'array', items: { type: 'string' } },
    emit_account_id: { type: 'boolean' },
    format_from_uri: { type: 'boolean' },
    from_uri_realm: { type: 'string' },
    hunt_account_id: { type: 'string' },
    ignore_early_media: { type: 'boolean', default: false },
    outbound_flags: { type: 'array', items: { type: 'string' }, default: [] },
    resource_type: { type: 'string' },
    ringback: { type: 'string' },
    skip_module: { type: 'boolean' },
    timeout: { type: 'integer' },
    to_did: { type: 'string' },
    use_local_resources: { type: 'boolean', default: true },
  },
});

export const callflowsOffnet = defineSchema('callflows.offnet', carrierRoute());

export const callflowsPageGroup = defineSchema('callflows.page_group', {
  type: 'object',
  required: ['audio', 'endpoints'],
  properties: {
    audio: { type: 'string', enum: ['one-way', 'two-way'], default: 'one-way' },
    barge_calls: { type: 'boolean' },
    endpoints: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['endpoint_type', 'id'],
        properties: {
          delay: { type: 'integer', default: 0 },
          endpoint_type: { type: 'string', enum: ['device', 'user', 'group'] },
          id: { type: 'string', minLength: 1, maxLength: 128 },
          timeout: { type: 'integer', default: 20 },
          weight: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
    },
    skip_module: { type: 'boolean' },
    timeout: { type: 'integer', default: 5 },
  },
});

export const callflowsPark = defineSchema('callflows.park', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['direct_park', 'park', 'retrieve', 'auto'], default: 'park' },
    custom_presence_id: { type: 'boolean', default: false },
    default_callback_timeout: { type: 'integer' },
    default_presence_type: { type: 'string', enum: ['early', 'terminated', 'confirmed'] },
    default_ringback_timeout: { type: 'integer' },
    max_slot_number: { type: 'integer' },
    presence_id: { type: 'string' },
    skip_module: { type: 'boolean' },
    slot: { type: 'string' },
    slots: { type: 'object', default: {} },
  },
});

export const callflowsPivot = defineSchema('callflows.pivot', {
  type: 'object',
  required: ['voice_url'],
  properties: {
    cdr_url: { type: 'string', pattern: '^https?://' },
    debug: { type: 'boolean', default: false },
    method: { type: 'string', enum: ['get', 'post', 'GET', 'POST'], default: 'get' },
    req_body_format: { type: 'string', enum: ['form', 'json'], default: 'form' },
    req_format: { type: 'string', enum: ['kazoo', 'twiml'], default: 'kazoo' },
    req_timeout_ms: { type: 'integer', maximum: 5000 },
    skip_module: { type: 'boolean' },
    voice_url: { type: 'string', pattern: '^https?://', 'x-client-url': true },
  },
});

export const callflowsPrependCid = defineSchema('callflows.prepend_cid', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['reset', 'prepend'], default: 'prepend' },
    apply_to: { type: 'string', enum: ['original', 'current'], default: 'current' },
    caller_id_name_prefix: { type: 'string', default: '' },
    caller_id_number_prefix: { type: 'string', default: '' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsPrivacy = defineSchema('callflows.privacy', {
  type: 'object',
  properties: {
    endpoint_strategy: { type: 'string', enum: ['overwrite', 'merge'], default: 'overwrite' },
    mode: { type: 'string', enum: ['full', 'name', 'number', 'yes'], default: 'full' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsReceiveFax = defineSchema('callflows.receive_fax', {
  type: 'object',
  properties: {
    media: {
      type: 'object',
      properties: {
        fax_option: { oneOf: [{ type: 'string', enum: ['auto', 'false', 'true'] }, { type: 'boolean' }] },
      },
    },
    owner_id: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsRecordCall = defineSchema('callflows.record_call', {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['start', 'stop'], default: 'start' },
    format: { type: 'string', enum: ['mp3', 'wav'] },
    label: { type: 'string' },
    media_name: { type: 'string' },
    method: { type: 'string', enum: ['put', 'post'], default: 'put' },
    origin: { type: 'string' },
    record_min_sec: { type: 'integer' },
    record_on_answer: { type: 'boolean', default: false },
    record_on_bridge: { type: 'boolean', default: false },
    record_sample_rate: { type: 'integer' },
    should_follow_transfer: { type: 'boolean', default: true },
    skip_module: { type: 'boolean' },
    time_limit: { type: 'integer', minimum: 5, maximum: 10800, default: 3600 },
    url: { type: 'string', format: 'uri', 'x-client-url': true },
  },
});

export const callflowsRecordCaller = defineSchema('callflows.record_caller', {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['mp3', 'wav'] },
    method: { type: 'string', enum: ['put', 'post'], default: 'put' },
    skip_module: { type: 'boolean' },
    time_limit: { type: 'integer', minimum: 5, maximum: 10800, default: 3600 },
    url: { type: 'string', format: 'uri', 'x-client-url': true },
  },
});

export const callflowsResources = defineSchema('callflows.resources', carrierRoute());

export const callflowsResponse = defineSchema('callflows.response', {
  type: 'object',
  required: ['code'],
  properties: {
    code: { type: 'integer', default: 486 },
    media: { type: 'string', maxLength: 2048 },
    message: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsRingGroup = defineSchema('callflows.ring_group', {
  type: 'object',
  required: ['endpoints'],
  properties: {
    endpoints: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['endpoint_type', 'id'],
        properties: {
          delay: { type: 'integer', default: 0 },
          endpoint_type: { type: 'string', enum: ['device', 'user', 'group'] },
          id: { type: 'string', minLength: 1, maxLength: 128 },
          timeout: { type: 'integer', default: 20 },
          weight: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
    },
    fail_on_single_reject: { type: 'boolean' },
    ignore_forward: { type: 'boolean', default: true },
    repeats: { type: 'integer', minimum: 1, default: 1 },
    ringback: { type: 'string' },
    ringtones: { type: 'object', properties: { external: { type: 'string' }, internal: { type: 'string' } } },
    skip_module: { type: 'boolean' },
    strategy: {
      type: 'string',
      enum: ['simultaneous', 'single', 'weighted_random'],
      default: 'simultaneous',
    },
    timeout: { type: 'integer', default: 20 },
  },
});

export const callflowsRingGroupToggle = defineSchema('callflows.ring_group_toggle', {
  type: 'object',
  required: ['action', 'callflow_id'],
  properties: {
    action: { type: 'string', enum: ['login', 'logout'] },
    callflow_id: { type: 'string' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsRouteToCid = defineSchema('callflows.route_to_cid', {
  type: 'object',
  properties: {
    can_call_self: { type: 'boolean' },
    can_text_self: { type: 'boolean' },
    cid_types: { type: 'array', minItems: 1, items: { type: 'string' }, default: ['internal'] },
    delay: { type: 'integer', default: 0 },
    endpoint_types: { type: 'array', items: { type: 'string' }, default: [] },
    skip_module: { type: 'boolean' },
    static_invite: { type: 'string' },
    suppress_clid: { type: 'boolean' },
    timeout: { type: 'integer', default: 0 },
  },
});

export const callflowsSendDtmf = defineSchema('callflows.send_dtmf', {
  type: 'object',
  required: ['digits'],
  properties: {
    digits: { type: 'string' },
    duration_ms: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsSet = defineSchema('callflows.set', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsSetAlertInfo = defineSchema('callflows.set_alert_info', {
  type: 'object',
  required: ['alert_info'],
  properties: { alert_info: { type: 'string' }, skip_module: { type: 'boolean' } },
});

export const callflowsSetCid = defineSchema('callflows.set_cid', {
  type: 'object',
  properties: {
    caller_id_name: { type: 'string', default: '' },
    caller_id_number: { type: 'string', default: '' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsSetVariable = defineSchema('callflows.set_variable', {
  type: 'object',
  properties: {
    channel: { type: 'string', enum: ['a', 'both'], default: 'a' },
    skip_module: { type: 'boolean' },
    value: { type: 'string' },
    variable: { type: 'string' },
  },
});

export const callflowsSetVariables = defineSchema('callflows.set_variables', {
  type: 'object',
  required: ['custom_application_vars'],
  properties: {
    custom_application_vars: { type: 'object', default: {} },
    export: { type: 'boolean' },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsSkel = defineSchema('callflows.skel', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsSleep = defineSchema('callflows.sleep', {
  type: 'object',
  properties: {
    duration: { type: 'integer', minimum: 0, maximum: 86400000, default: 0 },
    skip_module: { type: 'boolean' },
    unit: { type: 'string', enum: ['ms', 's', 'm', 'h'], default: 's' },
  },
});

export const callflowsTemporalRoute = defineSchema('callflows.temporal_route', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['menu', 'enable', 'disable', 'reset'] },
    interdigit_timeout: { type: 'integer' },
    rule_set: { type: 'string' },
    rules: { type: 'array', items: { type: 'string' }, default: [] },
    skip_module: { type: 'boolean' },
    timezone: { type: 'string' },
  },
});

export const callflowsTransfer = defineSchema('callflows.transfer', {
  type: 'object',
  properties: {
    captures: { type: 'array', items: { type: 'string' }, default: ['no_match'] },
    leg: { type: 'string', enum: ['self', 'bleg'] },
    skip_module: { type: 'boolean' },
    target: { type: 'string' },
    transfer_type: { type: 'string', enum: ['attended', 'blind'], default: 'blind' },
  },
});

export const callflowsUser = defineSchema('callflows.user', {
  type: 'object',
  properties: {
    can_call_self: { type: 'boolean' },
    can_text_self: { type: 'boolean' },
    custom_sip_headers: { type: 'object' },
    delay: { type: 'integer', default: 0 },
    fail_on_single_reject: { type: 'boolean' },
    id: { type: 'string' },
    skip_module: { type: 'boolean' },
    static_invite: { type: 'string' },
    strategy: { type: 'string', enum: ['simultaneous', 'single'], default: 'simultaneous' },
    suppress_clid: { type: 'boolean' },
    timeout: { type: 'integer', default: 20 },
  },
});

export const callflowsVoicemail = defineSchema('callflows.voicemail', {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['check', 'compose'], default: 'compose' },
    callerid_match_login: { type: 'boolean', default: false },
    id: { type: 'string', minLength: 32, maxLength: 32 },
    interdigit_timeout: { type: 'integer', default: 2000 },
    max_message_length: { type: 'integer', default: 500 },
    single_mailbox_login: { type: 'boolean', default: false },
    skip_module: { type: 'boolean' },
  },
});

export const callflowsWaitForHangup = defineSchema('callflows.wait_for_hangup', { type: 'object', properties: { skip_module: { type: 'boolean' } } });

export const callflowsWebhook = defineSchema('callflows.webhook', {
  type: 'object',
  properties: {
    custom_data: { type: 'object' },
    http_verb: { type: 'string', enum: ['post', 'get'] },
    retries: { type: 'integer' },
    skip_module: { type: 'boolean' },
    uri: { type: 'string', 'x-client-url': true },
  },
});

