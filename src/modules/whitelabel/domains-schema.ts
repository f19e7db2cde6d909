import { compileValidator } from '../../schema/validate.js';

/** One record type's hosts: a host name holding `{{domain}}` → what it must point to. */
const hosts = {
  type: 'object',
  additionalProperties: false,
  patternProperties: {
    '\\{\\{domain\\}\\}': {
      type: 'object',
      required: ['mapping', 'name'],
      properties: {
        mapping: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'what the host resolves to (may hold {{domain}})' },
        name: { type: 'string', description: 'what the host is for' },
        zone: { type: 'string', description: 'where the host is (informational)' },
      },
    },
  },
};

/**
 * The DNS records a whitelabelled domain needs (Kazoo's `domains` document, the system
 * `whitelabel` category's `domains`): by record type, the host templates and their mappings.
 */
export const domainsSchema = {
  type: 'object',
  properties: {
    A: { ...hosts, description: 'A records' },
    AAAA: { ...hosts, description: 'AAAA records' },
    CNAME: { ...hosts, description: 'CNAME records' },
    MX: { ...hosts, description: 'MX records, typically for email servers' },
    NAPTR: { ...hosts, description: 'NAPTR records' },
    SRV: { ...hosts, description: 'SRV records' },
    TXT: { ...hosts, description: 'TXT records' },
  },
  additionalProperties: false,
};

/** Validates a domains document, or throws the Kazoo-shaped 400. */
export const validateDomains = compileValidator(domainsSchema);
