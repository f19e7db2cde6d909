import type { ErrorObject } from 'ajv';
import type { ValidationErrors } from '../errors.js';
import { PRINTABLE } from './formats.js';

/**
 * The errors Kazoo reports, out of ajv's: those inside the branches of a `oneOf` or `anyOf` go
 * (Kazoo names only the field that matched no branch, as `not_one_schema_valid` or
 * `any_schemas_not_valid`), and so do `if` summaries.
 */
export function reportable(list: readonly ErrorObject[]): ErrorObject[] {
  const composite = list.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  return list.filter((e) => e.keyword !== 'if' && !composite.some((p) => e.schemaPath.startsWith(p)));
}

/** Turns ajv errors into Kazoo's `{field: {rule: {message, target?, value?}}}`, worded as Kazoo words them. */
export function toKazooErrors(list: readonly ErrorObject[]): ValidationErrors {
  const out: ValidationErrors = {};
  for (const e of list) {
    // an error inside a callflow's or metaflow's module data (keywords.ts), carried whole
    const nested = e.keyword === 'x-nested' ? { ...(e.params.error as ErrorObject), instancePath: e.instancePath } : e;
    const [field, rule, detail] = kazooError(nested);
    out[field || 'data'] = { ...(out[field || 'data'] ?? {}), [rule]: detail };
  }
  return out;
}

type Detail = Record<string, unknown>;

function kazooError(e: ErrorObject): [string, string, Detail] {
  const base = pointerToPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  const value = e.data;
  switch (e.keyword) {
    case 'required':
      return [join(base, String(p.missingProperty)), 'required', { message: 'Field is required but missing', value }];
    case 'additionalProperties':
      return [
        join(base, String(p.additionalProperty)),
        'additionalProperties',
        { message: 'Strict checking of data is enabled; only include schema-defined properties', value },
      ];
    case 'type': {
      const target = Array.isArray(e.schema) ? e.schema.join(', ') : String(e.schema);
      return [base, 'type', { message: `Value did not match type(s): ${target}`, target, value }];
    }
    case 'enum':
      return [base, 'enum', { message: 'Value not found in enumerated list of values', target: p.allowedValues, value }];
    case 'const':
      return [base, 'enum', { message: 'Value not found in enumerated list of values', target: [p.allowedValue], value }];
    case 'minimum':
    case 'exclusiveMinimum':
      return [base, 'minimum', { message: `Value must be at least ${p.limit}`, target: p.limit, value }];
    case 'maximum':
    case 'exclusiveMaximum':
      return [base, 'maximum', { message: `Value must be at most ${p.limit}`, target: p.limit, value }];
    case 'minLength':
      return [base, 'minLength', { message: `String must be at least ${p.limit} characters`, target: p.limit, cause: value, value }];
    case 'maxLength':
      return [base, 'maxLength', { message: `String must not be more than ${p.limit} characters`, target: p.limit, cause: value, value }];
    case 'minItems':
      return [base, 'minItems', { message: `The list must have at least ${p.limit} items`, target: p.limit, value }];
    case 'maxItems':
      return [base, 'maxItems', { message: `The list is more than ${p.limit} items`, target: p.limit, value }];
    case 'minProperties':
      return [base, 'minProperties', { message: `The object must have at least ${p.limit} keys`, target: p.limit, value }];
    case 'uniqueItems':
      return [base, 'uniqueItems', { message: 'List of items is not unique', value }];
    case 'pattern':
      return [base, 'pattern', { message: `Failed to match pattern '${p.pattern}'`, target: p.pattern, value }];
    case 'format':
      // tel's own format says what is wrong (Kazoo has none such)
      return [
        base,
        'wrong_format',
        { message: p.format === PRINTABLE ? 'Value must not hold control characters' : 'Field is not in the correct format', value, format: p.format },
      ];
    case 'oneOf':
      return [base, 'not_one_schema_valid', { message: 'failed to validate', value }];
    case 'anyOf':
      return [base, 'any_schemas_not_valid', { message: 'failed to validate', value }];
    case 'propertyNames':
      return [join(base, String(p.propertyName)), 'pattern', { message: 'Key is not valid', value: p.propertyName }];
    default:
      // tel's own keywords (keywords.ts) name their rule and message, as Kazoo's extensions do
      if (typeof p.rule === 'string') return [base, p.rule, { message: p.message ?? e.message, value: 'value' in p ? p.value : value }];
      return [base, e.keyword, { message: e.message ?? 'failed to validate', value }];
  }
}

/** A JSON pointer as Kazoo's dotted path (`/gateways/0/port` → `gateways.0.port`; a dot in a key is `%2E`). */
function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~').replace(/\./g, '%2E'))
    .join('.');
}

function join(base: string, key: string): string {
  const k = key.replace(/\./g, '%2E');
  return base ? `${base}.${k}` : k;
}
