import { defineSchema } from '../../schema/registry.js';

/** Who may reach an account's realm or a device, by address: Kazoo's `access_lists` schema. */
export const accessListsSchema = defineSchema('access_lists', {
  type: 'object',
  required: ['cidrs', 'order'],
  properties: {
    cidrs: { type: 'array', items: { type: 'string' } },
    order: { type: 'string', enum: ['allow,deny', 'deny,allow'] },
    user_agent: { type: 'string' },
  },
  additionalProperties: true,
});
