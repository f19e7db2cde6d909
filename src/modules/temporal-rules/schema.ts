import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/** A time-of-day rule a callflow's `temporal_route` checks: Kazoo's `temporal_rules` schema. */
export const temporalRuleSchema = defineSchema('temporal_rules', {
  type: 'object',
  required: ['cycle', 'name'],
  properties: {
    cycle: { type: 'string', enum: ['date', 'daily', 'weekly', 'monthly', 'yearly'] },
    days: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 31 } },
    enabled: { type: 'boolean' },
    flags: { type: 'array', items: { type: 'string' } },
    interval: { type: 'integer', minimum: 1, default: 1 },
    month: { type: 'integer', minimum: 1, maximum: 12 },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    ordinal: { type: 'string', enum: ['every', 'first', 'second', 'third', 'fourth', 'fifth', 'last'] },
    // 2011-04-01, in Gregorian seconds
    start_date: { type: 'integer', default: 62586115200 },
    time_window_start: { type: 'integer', minimum: 0, maximum: 86400 },
    time_window_stop: { type: 'integer', minimum: 0, maximum: 86400 },
    wdays: {
      type: 'array',
      items: { type: 'string', enum: ['monday', 'tuesday', 'wednesday', 'wensday', 'thursday', 'friday', 'saturday', 'sunday'] },
    },
  },
});

/** Temporal rules checked together: Kazoo's `temporal_rules_sets` schema. */
export const temporalRuleSetSchema = defineSchema('temporal_rules_sets', {
  type: 'object',
  required: ['name'],
  properties: {
    flags: { type: 'array', items: { type: 'string' } },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    temporal_rules: { type: 'array', items: { type: 'string' }, minItems: 1 },
  },
});
