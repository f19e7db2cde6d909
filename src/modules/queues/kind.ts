import { documentService } from '../documents/crud.js';
import { PRINTABLE } from '../../schema/validate.js';

const url = { type: 'string', format: 'http-uri' };

/** Where and how a queue reports its calls: a URL per call state (`all` for any) and the verb. */
export const notificationsSchema = {
  type: 'object',
  properties: {
    pickup: url,
    hangup: url,
    all: url,
    method: { type: 'string', enum: ['get', 'post', 'GET', 'POST'], default: 'get' },
  },
};

/** Call-center queues: plain documents carrying their `notifications` settings. */
export const queues = documentService({
  kind: 'queue',
  endpoint: 'queues',
  summary: ['name', 'strategy', 'notifications'],
  schema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
      strategy: { type: 'string', enum: ['round_robin', 'most_idle'], default: 'round_robin' },
      connection_timeout: { type: 'integer', minimum: 0 },
      notifications: notificationsSchema,
      ui_metadata: { type: 'object' },
    },
  },
});
