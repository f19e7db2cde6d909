import { documentService } from '../documents/crud.js';
import { queueSchema } from './schema.js';

/** Call-center queues: plain documents carrying their `notifications` settings. */
export const queues = documentService({
  kind: 'queue',
  endpoint: 'queues',
  summary: ['name', 'strategy', 'notifications'],
  schema: queueSchema,
});
