import { compileValidator } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';

/**
 * An account's whitelabel document: Kazoo's `whitelabel` schema; other fields are kept as sent.
 * The UI served from `domain` finds its account by it (`GET /v2/whitelabel/{domain}`).
 */
export const whitelabelSchema = defineSchema('whitelabel', {
  type: 'object',
  properties: {
    company_name: { type: 'string' },
    domain: { type: 'string', format: 'uri' },
    fake_api_url: { type: 'string', format: 'uri' },
    hide_credits: { type: 'boolean', default: false },
    hide_powered: { type: 'boolean', default: false },
    hide_registration: { type: 'boolean', default: false },
    inbound_trunks_price: { type: 'string' },
    nav: {
      type: 'object',
      properties: { help: { type: 'string', format: 'uri' }, learn_more: { type: 'string', format: 'uri' } },
    },
    outbound_trunks_price: { type: 'string' },
    port: {
      type: 'object',
      properties: {
        authority: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        features: { type: 'string', format: 'uri' },
        loa: { type: 'string', format: 'uri' },
        resporg: { type: 'string', format: 'uri' },
        support_email: { type: 'string', format: 'email' },
        terms: { type: 'string', format: 'uri' },
      },
    },
    twoway_trunks_price: { type: 'string' },
  },
});


/** Validates a whitelabel document: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateWhitelabel = compileValidator(whitelabelSchema);
