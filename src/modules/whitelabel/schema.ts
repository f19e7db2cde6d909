import { compileValidator } from '../../schema/validate.js';

/** A host name or IPv4 address, as a browser's `location.hostname` gives it (Monster UI looks itself up by it). */
const HOST_PATTERN = '^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$';

/** An account's whitelabel document (Kazoo's `whitelabel` schema); other fields are kept as sent. */
export const whitelabelSchema = {
  type: 'object',
  properties: {
    domain: { type: 'string', pattern: HOST_PATTERN },
    company_name: { type: 'string', maxLength: 256 },
    fake_api_url: { type: 'string', format: 'http-uri' },
    hide_credits: { type: 'boolean', default: false },
    hide_powered: { type: 'boolean', default: false },
    hide_registration: { type: 'boolean', default: false },
    inbound_trunks_price: { type: 'string', maxLength: 64 },
    outbound_trunks_price: { type: 'string', maxLength: 64 },
    twoway_trunks_price: { type: 'string', maxLength: 64 },
    nav: {
      type: 'object',
      properties: { help: { type: 'string', maxLength: 2048 }, learn_more: { type: 'string', maxLength: 2048 } },
    },
    port: {
      type: 'object',
      properties: {
        authority: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        features: { type: 'string' },
        loa: { type: 'string' },
        resporg: { type: 'string' },
        support_email: { type: 'string' },
        terms: { type: 'string' },
      },
    },
    ui_metadata: { type: 'object' },
  },
};

/** Validates a whitelabel document: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateWhitelabel = compileValidator(whitelabelSchema);
