import { PRINTABLE } from '../../schema/formats.js';
import { defineSchema } from '../../schema/registry.js';

/**
 * A resource template: a resource's fields a reseller offers its customers to start from, named
 * by `template_name` (Kazoo has no schema for it and checks only that; the rest is kept as sent).
 */
export const resourceTemplateSchema = defineSchema('resource_templates', {
  type: 'object',
  required: ['template_name'],
  properties: {
    template_name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE, description: 'what the template is called' },
    name: { type: 'string', maxLength: 128, format: PRINTABLE, description: 'the name a resource made from it gets' },
    // the patterns a resource made from it will hold: RE2's to take (schema/keywords.ts), as a resource's
    classifiers: { type: 'object', additionalProperties: { properties: { regex: { 'x-regex': true } } } },
    cid_rules: { items: { 'x-regex': true } },
    rules: { items: { 'x-regex': true } },
    rules_test: { items: { 'x-regex': true } },
    flat_rate_blacklist: { 'x-regex': true },
    flat_rate_whitelist: { 'x-regex': true },
    ui_metadata: { type: 'object' },
  },
});
