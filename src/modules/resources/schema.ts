import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema, ref, type JsonSchema } from '../../schema/registry.js';
import { customSipHeadersInOut, endpointMedia, formatters } from '../../schema/shared.js';

/**
 * A resource (carrier): the same document globally and per account. Kazoo's `resources` schema,
 * where the seed narrows it: a gateway's `endpoint_type` is one of the seed's (`voipapp` with
 * `voipapp_interface` and `voipapp_rr`, where Kazoo has `skype`), `ignore_flags`, `require_flags`
 * and `format_from_uri` default to false and `peer` is told, as the seed shows them.
 */
export const resourceSchema = defineSchema('resources', {
  type: 'object',
  required: ['gateways', 'name'],
  properties: {
    caller_id_options: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['internal', 'external', 'emergency'] } },
    },
    cid_rules: { type: 'array', items: { type: 'string', 'x-regex': true } },
    classifiers: {
      type: 'object',
      patternProperties: {
        '.+': {
          type: 'object',
          properties: {
            emergency: { type: 'boolean', default: false },
            enabled: { type: 'boolean', default: true },
            prefix: { type: 'string', maxLength: 64 },
            regex: { type: 'string', 'x-regex': true },
            suffix: { type: 'string', maxLength: 64 },
            weight_cost: { type: 'integer', minimum: 0, maximum: 100, default: 50 },
          },
        },
      },
    },
    emergency: { type: 'boolean', default: false },
    enabled: { type: 'boolean', default: true },
    flags: { type: 'array', items: { type: 'string' }, default: [] },
    flat_rate_blacklist: { type: 'string', 'x-regex': true },
    flat_rate_whitelist: { type: 'string', 'x-regex': true },
    format_from_uri: { type: 'boolean', default: false },
    formatters: { ...ref(formatters), type: 'object' },
    from_account_realm: { type: 'boolean', default: false },
    from_uri_realm: { type: 'string' },
    gateway_strategy: { type: 'string', enum: ['sequential', 'random'] },
    gateways: {
      type: 'array',
      items: {
        type: 'object',
        required: ['server'],
        properties: {
          bypass_media: { type: 'boolean' },
          caller_id_type: { type: 'string', enum: ['internal', 'external', 'emergency'] },
          channel_selection: { type: 'string', enum: ['ascending', 'descending'], default: 'ascending' },
          codecs: {
            type: 'array',
            uniqueItems: true,
            items: {
              type: 'string',
              enum: [
                'G729', 'PCMU', 'PCMA', 'G722_16', 'G722_32', 'CELT_48', 'CELT_64', 'Speex', 'GSM', 'OPUS',
                'H261', 'H263', 'H264', 'VP8',
              ],
            },
          },
          custom_sip_headers: customSipHeadersInOut,
          custom_sip_interface: { type: 'string' },
          enabled: { type: 'boolean', default: true },
          endpoint_type: { type: 'string', enum: ['sip', 'freetdm', 'voipapp', 'amqp'], default: 'sip' },
          force_port: { type: 'boolean', default: false },
          format_from_uri: { type: 'boolean' },
          from_uri_realm: { type: 'string' },
          invite_format: {
            type: 'string',
            enum: ['route', 'username', 'e164', 'npan', '1npan', 'strip_plus'],
            default: 'route',
          },
          invite_parameters: {
            type: 'object',
            properties: {
              dynamic: {
                type: 'array',
                items: {
                  oneOf: [
                    { type: 'string', pattern: 'custom_channel_vars\\..*' },
                    { type: 'string', pattern: 'custom_sip_headers\\..*' },
                    { type: 'string', enum: ['zone'] },
                    {
                      type: 'object',
                      required: ['key', 'tag'],
                      properties: {
                        key: {
                          oneOf: [
                            { type: 'string', pattern: 'custom_channel_vars\\..*' },
                            { type: 'string', pattern: 'custom_sip_headers\\..*' },
                            { type: 'string', enum: ['zone'] },
                          ],
                        },
                        separator: { type: 'string' },
                        tag: { type: 'string' },
                      },
                      additionalProperties: false,
                    },
                  ],
                },
              },
              static: { type: 'array', items: { type: 'string' } },
            },
            additionalProperties: false,
          },
          media: {
            type: 'object',
            properties: { fax_option: { type: 'boolean' }, rtcp_mux: { type: 'boolean' } },
          },
          password: { type: 'string', maxLength: 32 },
          port: { type: 'integer', default: 5060 },
          prefix: { type: 'string', maxLength: 64 },
          progress_timeout: { type: 'integer' },
          realm: { type: 'string', maxLength: 64 },
          route: { type: 'string' },
          server: { type: 'string', minLength: 1, maxLength: 128 },
          span: { type: 'string' },
          suffix: { type: 'string', maxLength: 64 },
          username: { type: 'string', maxLength: 32 },
          voipapp_interface: { type: 'string' },
          voipapp_rr: { type: 'boolean', default: true, description: 'round-robin over the interfaces (overrides voipapp_interface)' },
        },
      },
    },
    grace_period: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    ignore_flags: { type: 'boolean', default: false },
    media: ref(endpointMedia),
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    peer: { type: 'boolean', default: false, description: 'an account resource may peer only when api.resources allow_peers is true' },
    require_flags: { type: 'boolean', default: false },
    rules: { type: 'array', items: { type: 'string', 'x-regex': true }, default: [] },
    rules_test: { type: 'array', items: { type: 'string', 'x-regex': true }, default: [] },
    weight_cost: { type: 'integer', minimum: 0, maximum: 100, default: 50 },
  },
});


/** The body of `PUT …/resources/jobs`. */
export const jobSchema: JsonSchema = {
  type: 'object',
  required: ['numbers', 'resource_id'],
  properties: {
    numbers: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, maxLength: 64 } },
    resource_id: { type: 'string', minLength: 1, maxLength: 128 },
    name: { type: 'string', minLength: 1, maxLength: 128 },
  },
};
