import { defineSchema } from '../../schema/registry.js';

/** A calling-card callback entry: a caller ID or PIN that may place callback calls (Kazoo's `cccps` schema). */
export const cccpSchema = defineSchema('cccps', {
  type: 'object',
  properties: {
    active: { type: 'boolean', default: false, description: 'whether the CID/PIN may be used' },
    cid: { type: 'string', description: 'the caller ID authorized' },
    comment: { type: 'string', description: 'notes on what this PIN/CID is for' },
    max_concurent_calls_per_user: { type: 'integer', description: "calls a user may have at once (Kazoo's spelling)" },
    pin: { type: 'string', description: 'the PIN authorized' },
    retain_cid: { type: 'boolean', description: "pass the caller's number on to the callee" },
    user_id: { type: 'string', minLength: 32, maxLength: 32, description: 'the user that owns the CID/PIN' },
  },
});
