import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { noteCompilation } from '../schema/compilations.js';

/** Kazoo-shaped validation details: `{ "<dotted.path>": { "<rule>": { message, target?, value? } } }`. */
export type RestrictionErrors = Record<string, Record<string, Record<string, unknown>>>;

/** Pattern of authentication-method, privilege-level and endpoint keys. */
export const NAME_KEY_PATTERN = '^\\w+$';
/** Pattern of argument keys. */
export const ARG_KEY_PATTERN = '^[\\w/#*]+$';
/** The longest argument key or login pattern: matching one costs time in proportion to its segments. */
export const MAX_RESTRICTION_PATTERN_CHARS = 1000;
/** Verbs a rule may list. */
export const RULE_VERBS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE', '_'] as const;
/** Keys of second-form restrictions. */
export const LOGIN_KEYS = ['get', 'put', 'post', 'patch', 'delete', '*'] as const;

const verbList = {
  type: 'array',
  uniqueItems: true,
  items: { type: 'string', enum: RULE_VERBS },
};

const ruleObjectKeywords = {
  properties: {
    allowed_accounts: { type: 'array', uniqueItems: true, items: { type: 'string' } },
    rules: {
      type: 'object',
      propertyNames: { pattern: ARG_KEY_PATTERN, maxLength: MAX_RESTRICTION_PATTERN_CHARS },
      additionalProperties: verbList,
    },
  },
  // A misspelt `allowed_accounts` would otherwise read as "any account": refuse unknown fields.
  additionalProperties: false,
};

/** JSON Schema of endpoint rules (endpoint name → rule objects), what a token carries. */
export const endpointRulesSchema = {
  type: 'object',
  propertyNames: { pattern: NAME_KEY_PATTERN },
  // `properties` applies only to objects and `items` only to arrays, so one schema takes
  // both an array of rule objects and a single rule object.
  additionalProperties: {
    type: ['array', 'object'],
    items: { type: 'object', ...ruleObjectKeywords },
    ...ruleObjectKeywords,
  },
};

/** JSON Schema of a restriction template (the value of `restrictions`). */
export const templateSchema = {
  type: 'object',
  propertyNames: { pattern: NAME_KEY_PATTERN },
  additionalProperties: {
    type: 'object',
    propertyNames: { pattern: NAME_KEY_PATTERN },
    additionalProperties: endpointRulesSchema,
  },
};

/** JSON Schema of the token_restrictions document body (`data`). */
export const documentSchema = {
  type: 'object',
  required: ['restrictions'],
  properties: { restrictions: templateSchema },
};

/** JSON Schema of second-form restrictions (a login payload's `restrictions`). */
export const loginSchema = {
  type: 'object',
  propertyNames: { enum: LOGIN_KEYS },
  additionalProperties: { type: 'array', items: { type: 'string', minLength: 1, maxLength: MAX_RESTRICTION_PATTERN_CHARS } },
};

type Checks = Record<'template' | 'endpointRules' | 'document' | 'login', ValidateFunction>;
let checks: Checks | undefined;

/** The four checks, compiled when a restriction is first validated (never at start-up). */
function compiled(): Checks {
  if (checks) return checks;
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  checks = {
    template: ajv.compile(templateSchema),
    endpointRules: ajv.compile(endpointRulesSchema),
    document: ajv.compile(documentSchema),
    login: ajv.compile(loginSchema),
  };
  noteCompilation(4);
  return checks;
}

function run(which: keyof Checks, value: unknown, base: string): RestrictionErrors | undefined {
  const fn = compiled()[which];
  return fn(value) ? undefined : toKazooErrors(fn.errors ?? [], base);
}

/** Validates a restriction template; errors are keyed under `base` (default `restrictions`). */
export function validateTemplate(template: unknown, base = 'restrictions'): RestrictionErrors | undefined {
  return run('template', template, base);
}

/** Validates endpoint rules given for one token; errors are keyed under `base`. */
export function validateEndpointRules(rules: unknown, base = 'restrictions'): RestrictionErrors | undefined {
  return run('endpointRules', rules, base);
}

/** Validates the `data` of a token_restrictions write: `{restrictions: template}`. */
export function validateRestrictionsDocument(data: unknown): RestrictionErrors | undefined {
  return run('document', data, '');
}

/** Validates second-form restrictions of a login payload; errors keyed under `base`. */
export function validateLoginRestrictions(login: unknown, base = 'restrictions'): RestrictionErrors | undefined {
  return run('login', login, base);
}

function escapeKey(key: string): string {
  return key.replace(/\./g, '%2E');
}

function join(base: string, key: string): string {
  return base ? `${base}.${escapeKey(key)}` : escapeKey(key);
}

function pointerToPath(base: string, pointer: string): string {
  let path = base;
  if (!pointer) return path;
  for (const raw of pointer.slice(1).split('/')) path = join(path, raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path;
}

function describe(e: ErrorObject): [rule: string, detail: Record<string, unknown>] {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'pattern':
      return ['pattern', { message: `Failed to match pattern '${p.pattern}'`, target: p.pattern }];
    case 'enum':
      return ['enum', { message: 'Value not found in enumerated list of values', target: p.allowedValues }];
    case 'type': {
      const types = Array.isArray(p.type) ? p.type.join(', ') : String(p.type).split(',').join(', ');
      return ['type', { message: `Value did not match type(s): ${types}`, target: types }];
    }
    case 'uniqueItems':
      return ['uniqueItems', { message: 'List of items is not unique' }];
    case 'minLength':
      return ['minLength', { message: `String must be at least ${p.limit} characters`, target: p.limit }];
    default:
      return [e.keyword, { message: e.message ?? 'Value is not valid' }];
  }
}

/** Turns ajv errors into Kazoo's shape, with paths under `base`. */
function toKazooErrors(list: readonly ErrorObject[], base: string): RestrictionErrors {
  const out: RestrictionErrors = {};
  const add = (field: string, rule: string, detail: Record<string, unknown>) => {
    const key = field || base || 'data';
    out[key] = { ...(out[key] ?? {}), [rule]: detail };
  };
  for (const e of list) {
    const at = pointerToPath(base, e.instancePath);
    if (e.keyword === 'propertyNames') continue; // summarised by the error about the name itself
    if (e.propertyName !== undefined) {
      const [rule, detail] = describe(e);
      add(join(at, e.propertyName), rule, { ...detail, value: e.propertyName });
    } else if (e.keyword === 'required') {
      add(join(at, String((e.params as { missingProperty: string }).missingProperty)), 'required', {
        message: 'Field is required but missing',
      });
    } else if (e.keyword === 'additionalProperties') {
      add(join(at, String((e.params as { additionalProperty: string }).additionalProperty)), 'additionalProperties', {
        message: 'Field is not allowed in a rule object (allowed: allowed_accounts, rules)',
      });
    } else {
      const [rule, detail] = describe(e);
      add(at, rule, { ...detail, value: e.data });
    }
  }
  return out;
}
