import { defineSchema } from '../../schema/registry.js';

/** Free minutes by call classification, renewed each cycle: Kazoo's `allotments` schema. */
export const allotmentsSchema = defineSchema('allotments', {
  type: 'object',
  patternProperties: {
    '^\\w+$': {
      type: 'object',
      required: ['amount', 'cycle'],
      properties: {
        amount: { type: 'integer', minimum: 0 },
        cycle: { type: 'string', enum: ['minutely', 'hourly', 'daily', 'weekly', 'monthly'] },
        group_consume: { type: 'array', items: { type: 'string' } },
        increment: { type: 'integer', minimum: 1 },
        minimum: { type: 'integer', minimum: 0 },
        no_consume_time: { type: 'integer', minimum: 0 },
      },
    },
  },
});
