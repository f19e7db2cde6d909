import { defineSchema } from '../../schema/registry.js';

/** One selector: Kazoo's `resource_selectors` schema. */
export const resourceSelectorSchema = defineSchema('resource_selectors', {
  type: 'object',
  required: ['name', 'resource', 'selector'],
  properties: {
    name: { type: 'string' },
    resource: { type: 'string' },
    selector: { type: 'string' },
    start_time: { type: 'integer' },
    stop_time: { type: 'integer' },
    value: { type: 'string' },
  },
});

/** The chain of rules that picks resources for a call: Kazoo's `resource_selectors.rules` schema. */
export const resourceSelectorRulesSchema = defineSchema('resource_selectors.rules', { type: 'object', default: {} });
