import { compileValidator } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';

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

/** An account's limits record: Kazoo's `limits` schema (unknown keys are kept, as Kazoo is not strict). */
export const limitsSchema = defineSchema('limits', {
  type: 'object',
  properties: {
    allow_prepay: { type: 'boolean', default: true },
    authz_resource_types: { type: 'array', items: { type: 'string' }, default: [] },
    ...Object.fromEntries(LIMIT_QUANTITIES.map((k) => [k, count])),
  },
});

/** Validates a limits record: fills the defaults, fixes `"5"` → 5, refuses negatives. */
export const validateLimits = compileValidator(limitsSchema);

/** What `GET …/limits` answers for an account that never stored limits: the schema's defaults. */
export function defaultLimits(): Record<string, unknown> {
  return validateLimits({});
}
