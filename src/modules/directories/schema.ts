import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/** A dial-by-name directory: Kazoo's `directories` schema. */
export const directorySchema = defineSchema('directories', {
  type: 'object',
  required: ['name'],
  properties: {
    confirm_match: { type: 'boolean', default: true },
    flags: { type: 'array', items: { type: 'string' } },
    max_dtmf: { type: 'integer', minimum: 0, default: 0 },
    min_dtmf: { type: 'integer', minimum: 1, default: 3 },
    name: { type: 'string', minLength: 1, format: PRINTABLE },
    search_fields: { type: 'string', enum: ['first_name', 'last_name', 'both'] },
    sort_by: { type: 'string', enum: ['first_name', 'last_name'], default: 'last_name' },
    users: { type: 'array', items: { type: 'string' }, default: [] },
  },
});
