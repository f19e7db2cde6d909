import { PRINTABLE } from '../../../schema/formats.js';
import { defineSchema, ref } from '../../../schema/registry.js';
import { callflowsAction } from '../../../schema/callflow-actions.js';
import { metaflows } from '../../../schema/metaflows.js';

/**
 * A callflow (numbers and patterns routed to a tree of actions): Kazoo's `callflows` schema; each
 * action's `data` is checked by its module's schema (callflow-actions.ts).
 */
export const callflowSchema = defineSchema('callflows', {
  type: 'object',
  properties: {
    featurecode: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 128 },
        number: { type: 'string', minLength: 1, maxLength: 30 },
      },
    },
    flags: { type: 'array', items: { type: 'string' } },
    flow: ref(callflowsAction),
    metaflow: ref(metaflows),
    name: { type: 'string', format: PRINTABLE },
    numbers: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 36 },
      default: [],
    },
    patterns: { type: 'array', items: { type: 'string', minLength: 1, 'x-regex': true }, default: [] },
    ringback: { type: 'object', properties: { early: { type: 'string' }, transfer: { type: 'string' } } },
  },
});

