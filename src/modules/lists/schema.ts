import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema, ref } from '../../schema/registry.js';
import { profile } from '../../schema/shared.js';

/** A match list (numbers, prefixes, patterns a callflow's `lookupcidname` or `check_cid` use): Kazoo's `lists` schema. */
export const listSchema = defineSchema('lists', {
  type: 'object',
  required: ['name'],
  properties: {
    description: { type: 'string', minLength: 1, maxLength: 128 },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    org: { type: 'string' },
  },
});

/** One entry of a list: Kazoo's `list_entries` schema. */
export const listEntrySchema = defineSchema('list_entries', {
  type: 'object',
  required: ['list_id'],
  properties: {
    capture_group_key: { type: 'string' },
    capture_group_length: { type: 'integer' },
    displayname: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    firstname: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    lastname: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    list_id: { type: 'string' },
    number: { type: 'string' },
    pattern: { type: 'string' },
    profile: { ...ref(profile), type: 'object', default: {} },
    type: { type: 'string', minLength: 1, maxLength: 128 },
  },
});
