import { compileValidator, PRINTABLE } from '../../schema/validate.js';

/** A host name or IPv4 address, as a browser's `location.hostname` gives it (Monster UI looks itself up by it). */
const HOST_PATTERN = '^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$';

/** A link shown in the UI: an http(s) URL. */
const LINK = { type: 'string', format: 'http-uri', maxLength: 2048 };

/** An account's whitelabel document (Kazoo's `whitelabel` schema); other fields are kept as sent. */
export const whitelabelSchema = {
  type: 'object',
  properties: {
    domain: { type: 'string', pattern: HOST_PATTERN },
    company_name: { type: 'string', maxLength: 256, format: PRINTABLE },
    fake_api_url: { type: 'string', format: 'http-uri' },
    hide_credits: { type: 'boolean', default: false },
    hide_powered: { type: 'boolean', default: false },
    hide_registration: { type: 'boolean', default: false },
    inbound_trunks_price: { type: 'string', maxLength: 64 },
    outbound_trunks_price: { type: 'string', maxLength: 64 },
    twoway_trunks_price: { type: 'string', maxLength: 64 },
    // links the login page and the UI show to everyone on the domain: http(s) only, never `javascript:`
    nav: {
      type: 'object',
      properties: { help: LINK, learn_more: LINK },
    },
    port: {
      type: 'object',
      properties: {
        authority: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        features: LINK,
        loa: LINK,
        resporg: LINK,
        support_email: { type: 'string' },
        terms: LINK,
      },
    },
    ui_metadata: { type: 'object' },
  },
};

/** Validates a whitelabel document: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateWhitelabel = compileValidator(whitelabelSchema);
