import { compileValidator } from '../../schema/validate.js';
import { defineSchema, ref } from '../../schema/registry.js';

/**
 * One record type's hosts (Kazoo's `domain_hosts`): a host name holding `{{domain}}` → what it must
 * point to (`mapping`), what it is for (`name`); other fields (Kazoo's plan has `zone`) are kept.
 */
export const domainHostsSchema = defineSchema('domain_hosts', {
  additionalProperties: false,
  patternProperties: {
    '.*[\\{]{2}domain[\\}]{2}.*': {
      type: 'object',
      required: ['mapping', 'name'],
      properties: {
        mapping: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'what the host resolves to (may hold {{domain}})' },
        name: { type: 'string', description: 'what the host is for' },
      },
    },
  },
});

const hosts = (description: string) => ({ ...ref(domainHostsSchema), type: 'object', description });

/**
 * The DNS records a whitelabelled domain needs (Kazoo's `domains` document, the system
 * `whitelabel` category's `domains`): by record type, the host templates and their mappings. Kazoo
 * checks CNAME's hosts only; tel checks every record type's (AAAA and others too), since it fills
 * each mapping in.
 */
export const domainsSchema = defineSchema('domains', {
  properties: {
    A: hosts('A records'),
    CNAME: hosts('CNAME records'),
    MX: hosts('MX records, typically for email servers'),
    NAPTR: hosts('NAPTR records'),
    SRV: hosts('SRV records'),
    TXT: hosts('TXT records'),
  },
  additionalProperties: hosts('records of another type (AAAA …)'),
});

/** Validates a domains document, or throws the Kazoo-shaped 400. */
export const validateDomains = compileValidator(domainsSchema);

/** The plan for one domain, as the domains routes answer it: by record type, hosts and their mappings. */
export const domainPlanAnswer = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['mapping', 'name'],
      properties: { mapping: { type: 'array', items: { type: 'string' } }, name: { type: 'string' } },
    },
  },
};

/** What testing a domain answers: by record type and host, the mapping expected and what DNS answered. */
export const domainTestAnswer = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['expected', 'actual', 'name'],
      properties: { expected: { type: 'array', items: { type: 'string' } }, actual: { type: 'array', items: { type: 'string' } }, name: { type: 'string' } },
    },
  },
};
