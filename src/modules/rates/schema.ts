import { defineSchema } from '../../schema/registry.js';

/** What a call to numbers of a prefix costs: Kazoo's `rates` schema. */
export const rateSchema = defineSchema('rates', {
  type: 'object',
  required: ['prefix', 'rate_cost'],
  properties: {
    account_id: { type: 'string' },
    caller_id_numbers: { type: 'string' },
    carrier: { type: 'string' },
    description: { type: 'string' },
    direction: { type: 'array', items: { type: 'string', enum: ['inbound', 'outbound'] } },
    internal_rate_cost: { type: 'number', minimum: 0 },
    iso_country_code: { type: 'string' },
    options: { type: 'array', items: { type: 'string' } },
    prefix: { type: 'integer' },
    rate_cost: { type: 'number', minimum: 0 },
    rate_increment: { type: 'integer', minimum: 1 },
    rate_minimum: { type: 'integer', minimum: 1 },
    rate_name: { type: 'string' },
    rate_nocharge_time: { type: 'integer', minimum: 0 },
    rate_suffix: { type: 'string' },
    rate_surcharge: { type: 'number', minimum: 0 },
    rate_version: { type: 'string' },
    ratedeck_id: { type: 'string' },
    routes: { type: 'array', items: { type: 'string' } },
    weight: { type: 'integer', minimum: 1, maximum: 100 },
  },
});
