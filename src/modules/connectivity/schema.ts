import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

const callerId = (min?: number) => ({
  type: 'object',
  properties: {
    cid_name: { type: 'string', ...(min ? { minLength: min } : {}), maxLength: 35 },
    cid_number: { type: 'string', ...(min ? { minLength: min } : {}), maxLength: 35 },
  },
});
const failover = { type: 'object', properties: { e164: { type: 'string' }, sip: { type: 'string' } } };

/** A PBX connected as a trunk (Kazoo's trunkstore `sys_info` document): Kazoo's `connectivity` schema. */
export const connectivitySchema = defineSchema('connectivity', {
  properties: {
    account: {
      type: 'object',
      properties: {
        caller_id: callerId(),
        emergency_caller_id: callerId(),
        trunks: { type: 'integer', minimum: 0 },
      },
    },
    name: { type: 'string', format: PRINTABLE },
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['auth'],
        properties: {
          DIDs: {
            type: 'object',
            patternProperties: {
              '^\\+?\\d*$': {
                type: 'object',
                properties: {
                  caller_id: callerId(1),
                  failover,
                  force_outbound: { type: 'boolean', default: false },
                  options: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
          auth: {
            type: 'object',
            required: ['auth_method'],
            properties: {
              auth_method: { type: 'string', enum: ['password', 'Password', 'IP', 'ip'], default: 'password' },
              auth_password: { type: 'string', minLength: 1 },
              auth_user: { type: 'string', minLength: 1 },
              ip: { type: 'string' },
              port: { type: 'integer' },
            },
          },
          name: { type: 'string', minLength: 1 },
          options: {
            type: 'object',
            properties: {
              caller_id: callerId(1),
              delay: { type: 'integer', default: 0 },
              dynamic_flags: { type: 'array', items: { type: 'string' } },
              emergency_caller_id: callerId(),
              enabled: { type: 'boolean', default: true },
              failover,
              flags: { type: 'array', items: { type: 'string' } },
              force_outbound: { type: 'boolean', default: false },
              hunt_account_id: { type: 'string' },
              hunt_non_reconcilable: { type: 'boolean', default: false },
              ignore_early_media: { type: 'boolean' },
              inbound_format: { type: 'string', enum: ['e164', 'npan', '1npan', 'username', 'strip_plus'], default: 'npan' },
              ip: { type: 'string' },
              media_handling: { type: 'string', enum: ['process', 'bypass'], default: 'bypass' },
              port: { type: 'integer' },
              progress_timeout: { type: 'integer', minimum: 1 },
              sip_headers: { type: 'array', items: { type: 'object' } },
              timeout: { type: 'integer' },
            },
          },
        },
      },
      default: [],
    },
  },
});
