import { compileValidator } from '../../schema/validate.js';

/** Limit items that are counts (trunks and call caps): non-negative integers. */
export const LIMIT_QUANTITIES = [
  'inbound_trunks',
  'outbound_trunks',
  'twoway_trunks',
  'burst_trunks',
  'calls',
  'resource_consuming_calls',
] as const;

const count = { type: 'integer', minimum: 0 };

/** The limits record clients may set (unknown keys are kept, as Kazoo is not strict). */
export const limitsSchema = {
  type: 'object',
  properties: {
    allow_prepay: { type: 'boolean', default: true },
    ...Object.fromEntries(LIMIT_QUANTITIES.map((k) => [k, count])),
    authz_resource_types: { type: 'array', items: { type: 'string' } },
    ui_metadata: { type: 'object' },
  },
};

/** Validates a limits record: fills `allow_prepay`, coerces `"5"` → 5, refuses negatives. */
export const validateLimits = compileValidator(limitsSchema);

/** What `GET …/limits` answers for an account that never stored limits. */
export function defaultLimits(): Record<string, unknown> {
  return { allow_prepay: true };
}
