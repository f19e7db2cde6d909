import type { ValidationErrors } from '../../errors.js';
import { isValidSecret } from '../../delivery/sign.js';
import { compileValidator, mergeErrors, PRINTABLE, throwIfErrors } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';
import { MIN_RATE_PER_S, SETTINGS } from '../../delivery/settings.js';
import { ACTION_ALIASES, HOOK_IDS, OBJECT_ACTIONS, OBJECT_HOOK_TYPES } from './hook-types.js';

/** Retries a hook may ask for: extra tries after a failed first one (Kazoo's bound). */
export const MAX_RETRIES = 4;

/** The highest `rate_limit_per_s` a hook may set (faster than that is no limit in a lab). */
export const MAX_RATE_PER_S = 10_000;

/**
 * A hook as an earlier tel may have stored it, read with today's bounds: `retries` above Kazoo's
 * 4 is 4, a `rate_limit_per_s` below 0.01 a second (or above the highest) is the bound. What is
 * answered, what deliveries use, and what a change merges into (a PATCH is not refused for a
 * value its client did not send): the stored row is rewritten with the bound at its next change.
 */
export function withinBounds(doc: Record<string, unknown>): Record<string, unknown> {
  const { retries, rate_limit_per_s: rate } = doc;
  const retriesOut = typeof retries === 'number' && (retries > MAX_RETRIES || retries < 0);
  const rateOut = typeof rate === 'number' && (rate < MIN_RATE_PER_S || rate > MAX_RATE_PER_S);
  if (!retriesOut && !rateOut) return doc;
  const out = { ...doc };
  if (retriesOut) out.retries = Math.min(Math.max(retries, 0), MAX_RETRIES);
  if (rateOut) out.rate_limit_per_s = Math.min(Math.max(rate, MIN_RATE_PER_S), MAX_RATE_PER_S);
  return out;
}

const scalar = { type: ['string', 'number', 'boolean'] };

/**
 * A webhook: Kazoo's `webhooks` schema (fields it does not name, like Monster UI's `group`, are
 * kept), with `hook` one of the hook types tel fires (Kazoo fills that list at start from the hooks
 * it runs), the seed's `modifiers` and `include_subaccounts` default, the contract's `types` filter
 * in `custom_data`, and tel's extensions `secret` and `rate_limit_per_s`.
 */
export const webhookSchema = defineSchema('webhooks', {
  type: 'object',
  required: ['hook', 'name', 'uri'],
  properties: {
    custom_data: {
      type: 'object',
      description: 'fields added to the payload, overwriting; an object hook reads type, types and action from it as filters',
      properties: { types: { type: ['string', 'array'], items: { type: 'string' } } },
      additionalProperties: { type: 'string' },
    },
    enabled: { type: 'boolean', default: true },
    format: { type: 'string', enum: ['form-data', 'json'], default: 'form-data', description: 'body format of post and put hooks (a get hook sends a query string)' },
    hook: { type: 'string', enum: HOOK_IDS, description: 'the event that fires the hook' },
    http_verb: { type: 'string', enum: ['get', 'post', 'put'], default: 'post' },
    include_internal_legs: { type: 'boolean', default: true },
    include_subaccounts: { type: 'boolean', default: false },
    modifiers: {
      type: 'object',
      description: 'pairs that must be present and equal in the payload (a list: one of)',
      additionalProperties: { anyOf: [scalar, { type: 'array', items: scalar }] },
    },
    name: { type: 'string', format: PRINTABLE, description: 'friendly name' },
    retries: { type: 'integer', minimum: 0, maximum: MAX_RETRIES, default: 2, description: `extra tries after a failure, 0..${MAX_RETRIES}` },
    uri: { type: 'string', format: 'uri', 'x-client-url': true, description: 'http(s) URI called on the event' },
    secret: { type: 'string', description: 'tel extension: Standard Webhooks signing secret, whsec_ + base64 of 24..64 bytes' },
    rate_limit_per_s: {
      type: 'number',
      minimum: MIN_RATE_PER_S,
      maximum: MAX_RATE_PER_S,
      description: 'tel extension: deliveries of this hook start at most this many times a second (other hooks are not slowed)',
    },
  },
});

const validateShape = compileValidator(webhookSchema);

function enumError(field: string, target: unknown[], value: unknown): ValidationErrors {
  return { [field]: { enum: { message: 'Value not found in enumerated list of values', target, value } } };
}

/** Checks the object filters (`action`, `type`, `types`) of `modifiers` or `custom_data`. */
function objectFilterErrors(where: string, filters: Record<string, unknown> | undefined): ValidationErrors | undefined {
  if (!filters) return undefined;
  const actions = ['all', ...OBJECT_ACTIONS, ...Object.keys(ACTION_ALIASES)];
  const types = ['all', ...OBJECT_HOOK_TYPES];
  const errs: (ValidationErrors | undefined)[] = [];
  const check = (key: string, allowed: string[]) => {
    const v = filters[key];
    if (v === undefined) return;
    const list = Array.isArray(v) ? v : [v];
    if (list.some((x) => typeof x !== 'string' || !allowed.includes(x))) errs.push(enumError(`${where}.${key}`, allowed, v));
  };
  check('action', actions);
  check('type', types);
  check('types', types);
  return mergeErrors(...errs);
}

/**
 * Validates a webhook document in place (defaults filled, `"2"` → 2), or throws the
 * Kazoo-shaped 400: the schema, then the rules a schema cannot say (object filters, the secret's form).
 */
export function validateWebhook(input: Record<string, unknown>): Record<string, unknown> {
  const shape = validateShape.check(input);
  const extra: (ValidationErrors | undefined)[] = [];
  if (input.hook === 'object') {
    extra.push(objectFilterErrors('modifiers', input.modifiers as Record<string, unknown> | undefined));
    extra.push(objectFilterErrors('custom_data', input.custom_data as Record<string, unknown> | undefined));
  }
  if (typeof input.secret === 'string' && !isValidSecret(input.secret)) {
    extra.push({ secret: { invalid: { message: 'secret must be whsec_ followed by base64 of 24 to 64 bytes' } } });
  }
  throwIfErrors(mergeErrors(shape, ...extra));
  return input;
}

const settingProperties = Object.fromEntries(
  Object.values(SETTINGS).map((s) => [s.key, { type: 'integer', minimum: s.min, ...(s.max === undefined ? {} : { maximum: s.max }) }]),
);

/** The account config `webhooks` document: the delivery settings an account may override. */
export const accountConfigSchema = { type: 'object', properties: settingProperties };

const instant = {
  type: ['integer', 'string'],
  description: 'Gregorian seconds (as the API\'s timestamps), an ISO 8601 date, or a duration ago such as 2h',
};

/** The body of `PUT /v2/accounts/{id}/webhooks/replay`, a tel extension: which recorded deliveries to send again. */
export const replaySchema = {
  type: 'object',
  required: ['since'],
  description: 'tel extension: recorded deliveries sent again with their original event ids; answers {replayed, skipped}',
  properties: {
    since: { ...instant, description: `deliveries made since: ${instant.description}` },
    until: { ...instant, description: `and made until (default now): ${instant.description}` },
    hook_id: { type: 'string', description: "only this hook's (refused while it is disabled)" },
    failed_only: { type: 'boolean', default: false, description: 'only those that never reached the endpoint: failed for good, or dropped while the hook was off' },
  },
};

/** Validates a replay's `data` (coercing `"true"` → true) or throws the 400. */
export const validateReplay = compileValidator<{ since: number | string; until?: number | string; hook_id?: string; failed_only: boolean }>(replaySchema);
