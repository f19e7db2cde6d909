import { PRINTABLE, type JsonSchema } from '../../schema/validate.js';

/** Audio codecs of an endpoint media object (the seed's list). */
export const AUDIO_CODECS = [
  'OPUS', 'CELT@32000h', 'G7221@32000h', 'G7221@16000h', 'G722', 'speex@32000h', 'speex@16000h', 'PCMU', 'PCMA',
  'G729', 'GSM', 'CELT@48000h', 'CELT@64000h', 'G722_16', 'G722_32', 'CELT_48', 'CELT_64', 'Speex', 'speex',
];
/** Video codecs of an endpoint media object. */
export const VIDEO_CODECS = ['H261', 'H263', 'H264', 'VP8'];
/** Codecs a gateway may list. */
export const GATEWAY_CODECS = [
  'G729', 'PCMU', 'PCMA', 'G722_16', 'G722_32', 'CELT_48', 'CELT_64', 'Speex', 'GSM', 'OPUS', 'H261', 'H263', 'H264', 'VP8',
];

const str = (min: number, max: number): JsonSchema => ({ type: 'string', minLength: min, maxLength: max });
const regex: JsonSchema = { type: 'string', format: 'regex' };
const regexList: JsonSchema = { type: 'array', items: regex };
const callerIdType: JsonSchema = { type: 'string', enum: ['internal', 'external', 'emergency'] };

/** Custom SIP headers: header name (the seed's key pattern) to the value to add. */
const customSipHeaders: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: '^[a-zA-z0-9_\\-]+$' },
  additionalProperties: { type: 'string' },
};

/** A format-options object of `formatters`. */
const formatOptions: JsonSchema = {
  type: 'object',
  properties: {
    direction: { type: 'string', enum: ['inbound', 'outbound', 'both'] },
    match_invite_format: { type: 'boolean' },
    prefix: { type: 'string' },
    regex,
    strip: { type: 'boolean' },
    suffix: { type: 'string' },
    value: { type: 'string' },
  },
};

/** `formatters`: keys of the route request, each one format-options object or an array of them. */
const formatters: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z0-9_]+$' },
  additionalProperties: { if: { type: 'array' }, then: { items: formatOptions }, else: formatOptions },
};

/** The endpoint media object (resource level). */
const endpointMedia: JsonSchema = {
  type: 'object',
  properties: {
    audio: {
      type: 'object',
      properties: { codecs: { type: 'array', uniqueItems: true, items: { type: 'string', enum: AUDIO_CODECS } } },
      default: {},
    },
    video: {
      type: 'object',
      properties: { codecs: { type: 'array', uniqueItems: true, items: { type: 'string', enum: VIDEO_CODECS }, default: [] } },
      default: {},
    },
    // The string forms are deprecated but still accepted, so they must not be coerced away.
    bypass_media: { type: ['boolean', 'string'], enum: [true, false, 'true', 'false', 'auto'] },
    encryption: {
      type: 'object',
      properties: {
        enforce_security: { type: 'boolean', default: false },
        methods: { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['zrtp', 'srtp'] }, default: [] },
      },
      default: {},
    },
    fax_option: { type: 'boolean' },
    ignore_early_media: { type: 'boolean' },
    progress_timeout: { type: 'integer', minimum: 0 },
  },
  default: {},
};

/** Invite parameters: `static` strings, `dynamic` property paths or `{tag, key, separator}`. */
const inviteParameters: JsonSchema = {
  type: 'object',
  properties: {
    static: { type: 'array', items: { type: 'string', minLength: 1 } },
    dynamic: {
      type: 'array',
      items: {
        if: { type: 'string' },
        then: { minLength: 1 },
        else: {
          type: 'object',
          required: ['tag', 'key'],
          properties: {
            tag: { type: 'string', minLength: 1 },
            key: { type: 'string', minLength: 1 },
            separator: { type: 'string', default: '=' },
          },
        },
      },
    },
  },
};

/** One gateway of a resource. */
const gateway: JsonSchema = {
  type: 'object',
  required: ['server'],
  properties: {
    server: str(1, 128),
    enabled: { type: 'boolean', default: true },
    endpoint_type: { type: 'string', enum: ['sip', 'freetdm', 'voipapp', 'amqp'], default: 'sip' },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 5060 },
    username: str(0, 32),
    password: str(0, 32),
    realm: str(0, 64),
    prefix: str(0, 64),
    suffix: str(0, 64),
    route: { type: 'string' },
    invite_format: { type: 'string', enum: ['route', 'username', 'e164', 'npan', '1npan'], default: 'route' },
    channel_selection: { type: 'string', enum: ['ascending', 'descending'], default: 'ascending' },
    span: { type: 'string' },
    force_port: { type: 'boolean', default: false },
    bypass_media: { type: 'boolean' },
    caller_id_type: callerIdType,
    codecs: { type: 'array', uniqueItems: true, items: { type: 'string', enum: GATEWAY_CODECS } },
    custom_sip_headers: { ...customSipHeaders, properties: { in: customSipHeaders, out: customSipHeaders } },
    custom_sip_interface: { type: 'string' },
    format_from_uri: { type: 'boolean' },
    from_uri_realm: { type: 'string' },
    progress_timeout: { type: 'integer', minimum: 0 },
    media: {
      type: 'object',
      properties: { fax_option: { type: 'boolean' }, rtcp_mux: { type: 'boolean' } },
    },
    invite_parameters: inviteParameters,
    voipapp_interface: { type: 'string' },
    voipapp_rr: { type: 'boolean', default: true },
  },
};

/** A classifier entry of `classifiers`. */
const classifier: JsonSchema = {
  type: 'object',
  properties: {
    emergency: { type: 'boolean', default: false },
    enabled: { type: 'boolean', default: true },
    prefix: str(0, 64),
    suffix: str(0, 64),
    regex,
    weight_cost: { type: 'integer', minimum: 0, maximum: 100, default: 50 },
  },
};

/** A resource (carrier): the same document globally and per account. */
export const resourceSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'gateways'],
  properties: {
    name: { ...str(1, 128), format: PRINTABLE },
    gateways: { type: 'array', items: gateway },
    enabled: { type: 'boolean', default: true },
    emergency: { type: 'boolean', default: false },
    weight_cost: { type: 'integer', minimum: 0, maximum: 100, default: 50 },
    grace_period: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    flags: { type: 'array', items: { type: 'string' }, default: [] },
    ignore_flags: { type: 'boolean', default: false },
    require_flags: { type: 'boolean', default: false },
    rules: { ...regexList, default: [] },
    rules_test: { ...regexList, default: [] },
    cid_rules: regexList,
    caller_id_options: { type: 'object', properties: { type: callerIdType } },
    carrier_id: { type: 'string' },
    classifiers: { type: 'object', additionalProperties: classifier },
    flat_rate_whitelist: regex,
    flat_rate_blacklist: regex,
    format_from_uri: { type: 'boolean', default: false },
    from_account_realm: { type: 'boolean', default: false },
    from_uri_realm: { type: 'string' },
    gateway_strategy: { type: 'string', enum: ['sequential', 'random'] },
    formatters,
    media: endpointMedia,
    custom_sip_headers: customSipHeaders,
    peer: { type: 'boolean', default: false },
    ui_metadata: { type: 'object' },
  },
};

/** The body of `PUT …/resources/jobs`. */
export const jobSchema: JsonSchema = {
  type: 'object',
  required: ['numbers', 'resource_id'],
  properties: {
    numbers: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, maxLength: 64 } },
    resource_id: { type: 'string', minLength: 1, maxLength: 128 },
    name: str(1, 128),
    ui_metadata: { type: 'object' },
  },
};
