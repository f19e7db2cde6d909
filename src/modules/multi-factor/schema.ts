import { defineSchema } from '../../schema/registry.js';

/** A multi-factor provider's configuration (Kazoo's `multi_factor_provider`); other fields are kept. */
export const multiFactorProviderSchema = defineSchema('multi_factor_provider', {
  type: 'object',
  required: ['enabled', 'name', 'provider_name'],
  description: 'a multi-factor authentication provider: which one, its settings, whether it is used',
  properties: {
    enabled: { type: 'boolean', description: 'whether the configuration is used' },
    name: { type: 'string', description: 'a name for the configuration' },
    provider_name: { type: 'string', description: 'the provider (duo, otp, …)' },
    settings: { type: 'object', description: "the provider's settings" },
  },
});
