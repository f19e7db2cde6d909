import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

const url = { type: 'string', format: 'http-uri' };

/** Where and how a queue reports its calls (tel's contract): a URL per call state (`all` for any) and the verb. */
export const notificationsSchema = {
  type: 'object',
  properties: {
    pickup: url,
    hangup: url,
    all: url,
    method: { type: 'string', enum: ['get', 'post', 'GET', 'POST'], default: 'get' },
  },
};

/** A call-center queue: Kazoo's `queues` schema, with tel's `notifications`. */
export const queueSchema = defineSchema('queues', {
  type: 'object',
  required: ['name'],
  properties: {
    agent_ring_timeout: { type: 'integer', minimum: 1, default: 15 },
    agent_wrapup_time: { type: 'integer', minimum: 0, default: 0 },
    announce: { type: 'string' },
    announcements: {
      type: 'object',
      properties: {
        interval: { type: 'integer', minimum: 15, default: 30 },
        media: {
          type: 'object',
          required: ['in_the_queue', 'increase_in_call_volume', 'the_estimated_wait_time_is', 'you_are_at_position'],
          properties: {
            in_the_queue: { type: 'string' },
            increase_in_call_volume: { type: 'string' },
            the_estimated_wait_time_is: { type: 'string' },
            you_are_at_position: { type: 'string' },
          },
        },
        position_announcements_enabled: { type: 'boolean' },
        wait_time_announcements_enabled: { type: 'boolean' },
      },
    },
    caller_exit_key: {
      type: 'string',
      enum: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'],
      default: '#',
    },
    cdr_url: { type: 'string', format: 'uri' },
    connection_timeout: { type: 'integer', minimum: 0, default: 3600 },
    enter_when_empty: { type: 'boolean', default: true },
    max_priority: { type: 'integer', minimum: 0, maximum: 255 },
    max_queue_size: { type: 'integer', default: 0 },
    moh: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    record_caller: { type: 'boolean', default: false },
    recording_url: { type: 'string', format: 'uri' },
    ring_simultaneously: { type: 'integer', minimum: 1, default: 1 },
    notifications: notificationsSchema,
    strategy: { type: 'string', enum: ['round_robin', 'most_idle'], default: 'round_robin' },
  },
});

