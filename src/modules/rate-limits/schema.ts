import { defineSchema, ref } from '../../schema/registry.js';

const counts = {
  type: 'object',
  required: ['total_packets'],
  properties: { invites: { type: 'integer' }, registrations: { type: 'integer' }, total_packets: { type: 'integer' } },
  additionalProperties: false,
};

/** How many SIP packets a device may send: Kazoo's `device_rate_limits` schema. */
export const deviceRateLimitsSchema = defineSchema('device_rate_limits', {
  type: 'object',
  required: ['per_minute', 'per_second'],
  properties: { per_minute: counts, per_second: counts },
  additionalProperties: true,
});

/** An account's SIP rate limits, its realm's and its devices' by default: Kazoo's `account_rate_limits` schema. */
export const accountRateLimitsSchema = defineSchema('account_rate_limits', {
  type: 'object',
  required: ['account', 'device'],
  properties: { account: ref(deviceRateLimitsSchema), device: ref(deviceRateLimitsSchema) },
  additionalProperties: true,
});
