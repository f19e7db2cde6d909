import { defineSchema, ref } from '../../schema/registry.js';

/** One comment on a document: Kazoo's `comment` schema. */
export const commentSchema = defineSchema('comment', {
  type: 'object',
  required: ['author', 'content', 'timestamp'],
  properties: {
    account_id: { type: 'string' },
    action_required: { type: 'boolean', default: false },
    author: { type: 'string' },
    content: { type: 'string' },
    is_private: { type: 'boolean', default: false },
    timestamp: { type: 'integer' },
    user_id: { type: 'string' },
  },
});

/** Comments added to a document: Kazoo's `comments` schema. */
export const commentsSchema = defineSchema('comments', {
  type: 'object',
  properties: { comments: { type: 'array', items: ref(commentSchema) } },
});
