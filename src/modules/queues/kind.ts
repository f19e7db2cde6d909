import { documentService } from '../documents/crud.js';
import { queueSchema } from './schema.js';

/** Call-center queues: plain documents carrying their `notifications` settings (listed as Kazoo's `queues/crossbar_listing` emits them). */
export const queues = documentService({
  kind: 'queue',
  endpoint: 'queues',
  summary: ['name', 'strategy'],
  schema: queueSchema,
});
