import { compileValidator } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';
import { PRINTABLE } from '../../schema/formats.js';

/** A link the login page and the UI show to everyone on the domain: an http(s) URL with a host, never `javascript:`. */
const LINK = { type: 'string', format: 'uri', 'x-client-url': true };

/**
 * An account's whitelabel document: Kazoo's `whitelabel` schema; other fields are kept as sent.
 * The UI served from `domain` finds its account by it (`GET /v2/whitelabel/{domain}`).
 */
export const whitelabelSchema = defineSchema('whitelabel', {
  type: 'object',
  properties: {
    company_name: { type: 'string', format: PRINTABLE },
    domain: { type: 'string', format: 'uri' },
    fake_api_url: { type: 'string', format: 'uri' },
    hide_credits: { type: 'boolean', default: false },
    hide_powered: { type: 'boolean', default: false },
    hide_registration: { type: 'boolean', default: false },
    inbound_trunks_price: { type: 'string' },
    nav: {
      type: 'object',
      properties: { help: LINK, learn_more: LINK },
    },
    outbound_trunks_price: { type: 'string' },
    port: {
      type: 'object',
      properties: {
        authority: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        features: LINK,
        loa: LINK,
        resporg: LINK,
        support_email: { type: 'string', format: 'email' },
        terms: LINK,
      },
    },
    twoway_trunks_price: { type: 'string' },
  },
});


/** Validates a whitelabel document: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateWhitelabel = compileValidator(whitelabelSchema);
