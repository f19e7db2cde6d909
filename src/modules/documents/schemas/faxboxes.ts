import { PRINTABLE } from '../../../schema/formats.js';
import { defineSchema } from '../../../schema/registry.js';

/** How a fax box reports a fax it received or sent: a callback, emails, texts. */
const faxNotifications = {
  type: 'object',
  properties: {
    callback: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['post', 'put'] },
        type: { type: 'string', enum: ['json', 'www-url-form-encoded'] },
        url: { type: 'string', pattern: '^https?://', 'x-client-url': true },
      },
    },
    email: {
      type: 'object',
      properties: {
        send_to: {
          oneOf: [
            { type: 'array', items: { type: 'string', format: 'email' } },
            { type: 'string', format: 'email' },
          ],
        },
      },
    },
    sms: {
      type: 'object',
      properties: {
        send_to: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
      },
    },
  },
};

/** A fax box: Kazoo's `faxbox` schema. */
export const faxboxSchema = defineSchema('faxbox', {
  type: 'object',
  required: ['name'],
  properties: {
    attempts: { type: 'integer', minimum: 0, maximum: 4, default: 0 },
    caller_id: { type: 'string' },
    caller_name: { type: 'string', default: 'Kazoo Fax Printer' },
    custom_smtp_email_address: { type: 'string' },
    fax_header: { type: 'string', default: 'Kazoo Fax Printer' },
    fax_identity: { type: 'string' },
    fax_timezone: { type: 'string' },
    flags: { type: 'array', items: { type: 'string' } },
    media: { type: 'object', properties: { fax_option: { type: 'boolean' } }, default: {} },
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    notifications: {
      type: 'object',
      properties: {
        inbound: faxNotifications,
        outbound: faxNotifications,
      },
    },
    retries: { type: 'integer', minimum: 0, maximum: 4, default: 1 },
    smtp_permission_list: { type: 'array', items: { type: 'string', 'x-regex': true }, default: [] },
  },
});

