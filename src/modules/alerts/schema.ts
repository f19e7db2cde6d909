import { compileValidator } from '../../schema/validate.js';

/** Who an alert is for: everyone, resellers, one account, or the accounts below one. */
const audience = {
  type: 'object',
  required: ['type', 'value'],
  properties: {
    // `all`, `resellers`, `descendants`, or an account id
    type: { type: 'string', pattern: '^(all|resellers|descendants|[0-9a-f]{32})$' },
    // `all`, `users`, `admins`, or (for an account) a user id; for `descendants`: [ancestor id, all|users|admins]
    value: {
      anyOf: [
        { type: 'string', pattern: '^(all|users|admins|[0-9a-f]{32})$' },
        {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: [{ type: 'string', pattern: '^[0-9a-f]{32}$' }, { type: 'string', enum: ['all', 'users', 'admins'] }],
        },
      ],
    },
  },
};

/** A system alert, as a super-duper admin creates it (Kazoo's alert document). */
export const alertSchema = {
  type: 'object',
  required: ['title', 'message', 'from', 'to'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 256 },
    message: { type: 'string', minLength: 1, maxLength: 4096 },
    from: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['type', 'value'], properties: { type: { type: 'string' }, value: { type: 'string' } } },
    },
    to: { type: 'array', minItems: 1, maxItems: 100, items: audience },
    category: { type: 'string', maxLength: 64 },
    level: { type: 'string', maxLength: 32 },
    metadata: { type: 'object' },
    // Gregorian seconds; the alert is no longer listed after it
    expiration_date: { type: 'integer', minimum: 0 },
  },
};

/** Validates an alert, or throws the Kazoo-shaped 400. */
export const validateAlert = compileValidator(alertSchema);
