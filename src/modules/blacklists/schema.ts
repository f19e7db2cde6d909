import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/** A blacklist: numbers whose calls an account refuses (Kazoo's `blacklists` schema). */
export const blacklistSchema = defineSchema('blacklists', {
  type: 'object',
  required: ['name'],
  properties: {
    flags: { type: 'array', items: { type: 'string' } },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    numbers: { type: 'object', properties: {}, default: {} },
    should_block_anonymous: { type: 'boolean' },
  },
});
