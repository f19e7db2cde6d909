import { compileValidator, PRINTABLE } from '../../schema/validate.js';

/** The account document clients may set. Unknown keys are kept (Kazoo is not strict). */
export const accountSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
    realm: { type: 'string', minLength: 4, maxLength: 253, pattern: '^[.\\w_-]+$' },
    enabled: { type: 'boolean', default: true },
    timezone: { type: 'string' },
    language: { type: 'string' },
    restrictions: { type: 'object' },
    ui_metadata: { type: 'object' },
  },
} as const;

export const validateAccount = compileValidator(accountSchema);
