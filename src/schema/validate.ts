import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, errors, type ValidationErrors } from '../errors.js';
import { noteCompilation } from './compilations.js';

/** A JSON Schema (draft-07 as ajv takes it). */
export type JsonSchema = Record<string, unknown>;

let shared: Ajv | undefined;

/**
 * The one Ajv instance, made on first use: building it and compiling schemas is most of what a
 * short command would otherwise spend starting up, for schemas it never uses.
 */
function ajvInstance(): Ajv {
  if (shared) return shared;
  const ajv = new Ajv({
    allErrors: true,
    // Errors carry the offending value, as Kazoo's do.
    verbose: true,
    useDefaults: true,
    // Kazoo clients send "2" for 2 and "true" for true; coerce as Kazoo does.
    coerceTypes: true,
    strict: false,
  });
  ajv.addFormat('regex', {
    type: 'string',
    validate: (s: string) => {
      try {
        new RegExp(s);
        return true;
      } catch {
        return false;
      }
    },
  });
  ajv.addFormat('http-uri', {
    type: 'string',
    validate: (s: string) => {
      // The URL parser would read `http:///b` as host `b`; a client meant something else.
      if (!/^https?:\/\/[^/?#\s]/i.test(s)) return false;
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
      } catch {
        return false;
      }
    },
  });
  shared = ajv;
  return ajv;
}

/** A compiled validator: fills defaults and coerces in place, or throws a Kazoo-shaped 400. */
export interface Validator<T = Record<string, unknown>> {
  (doc: unknown): T;
  schema: JsonSchema;
  /** the same check, returning the errors instead of throwing */
  check(doc: unknown): ValidationErrors | undefined;
}

/** The compilers of the validators made so far, emptied by compileValidators. */
const uncompiled: (() => unknown)[] = [];

/** Compiles a schema once into a validator. */
export function compileValidator<T = Record<string, unknown>>(schema: JsonSchema): Validator<T> {
  // compiled at the first document checked, not when the module is loaded
  let fn: ValidateFunction | undefined;
  const compile = () => {
    if (!fn) {
      fn = ajvInstance().compile(schema);
      noteCompilation();
    }
    return fn;
  };
  uncompiled.push(compile);
  const check = (doc: unknown): ValidationErrors | undefined => {
    const fn = compile();
    dropNulls(doc);
    if (fn(doc)) return undefined;
    const found = toKazooErrors(fn.errors ?? []);
    // ajv keeps the last errors on the function, and with `verbose` they hold the document: a
    // hostile 5 MB body would stay in memory until the schema's next check
    fn.errors = null;
    return found;
  };
  const validate = ((doc: unknown) => {
    const errs = check(doc);
    if (errs) throw errors.validation(errs);
    return doc as T;
  }) as Validator<T>;
  validate.schema = schema;
  validate.check = check;
  return validate;
}

/**
 * Compiles up to `max` validators made so far that have not checked a document yet; answers how
 * many are left. A server compiles them all soon after it starts, so that no request waits for one.
 */
export function compileValidators(max = Infinity): number {
  for (let i = 0; i < max && uncompiled.length > 0; i++) uncompiled.shift()!();
  return uncompiled.length;
}

/**
 * Compiles the validators not compiled yet in the background, one a turn of the event loop:
 * requests are answered in between, and a listening server's first writes of each kind find
 * their schema ready.
 */
export function compileValidatorsInBackground(): void {
  const next = () => {
    if (compileValidators(1) > 0) setImmediate(next).unref();
  };
  setImmediate(next).unref();
}

/**
 * Removes `null` members of objects, at any depth: Kazoo reads a null as "not set" (and then
 * the default applies), where type coercion would turn it into `false`, `0` or `""`.
 */
export function dropNulls(value: unknown): void {
  // A loop, not recursion: how deep a document nests is the client's choice.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (Array.isArray(v)) {
      // indexed: this runs once a request, often before V8 optimises it, over lists of 100,000
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item !== null && typeof item === 'object') pending.push(item);
      }
    } else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const member = obj[key];
        if (member === null) delete obj[key];
        else if (typeof member === 'object') pending.push(member);
      }
    }
  }
}

/** Merges several ValidationErrors objects. */
export function mergeErrors(...all: (ValidationErrors | undefined)[]): ValidationErrors | undefined {
  const out: ValidationErrors = {};
  for (const e of all) {
    if (!e) continue;
    for (const [field, rules] of Object.entries(e)) out[field] = { ...(out[field] ?? {}), ...rules };
  }
  return Object.keys(out).length ? out : undefined;
}

/** Throws the 400 when `errs` holds anything. */
export function throwIfErrors(errs: ValidationErrors | undefined): void {
  if (errs) throw errors.validation(errs);
}

/** True when `err` is a 400 validation ApiError. */
export function isValidationError(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 400;
}

/** Turns ajv errors into Kazoo's `{field: {rule: {message, target?, value?}}}`. */
export function toKazooErrors(list: ErrorObject[]): ValidationErrors {
  const out: ValidationErrors = {};
  for (const e of list) {
    // oneOf/anyOf summaries add noise next to the precise errors beneath them.
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if') continue;
    const base = pointerToPath(e.instancePath);
    const p = e.params as Record<string, unknown>;
    let field = base;
    let rule = e.keyword;
    let detail: Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        field = join(base, String(p.missingProperty));
        detail = { message: 'Field is required but missing' };
        break;
      case 'additionalProperties':
        field = join(base, String(p.additionalProperty));
        detail = { message: 'Field is not allowed' };
        break;
      case 'type':
        detail = { message: `Value did not match type(s): ${p.type}`, target: p.type, value: e.data };
        break;
      case 'enum':
        detail = { message: 'Value not found in enumerated list of values', target: p.allowedValues, value: e.data };
        break;
      case 'const':
        rule = 'enum';
        detail = { message: 'Value not found in enumerated list of values', target: [p.allowedValue], value: e.data };
        break;
      case 'minimum':
      case 'exclusiveMinimum':
        rule = 'minimum';
        detail = { message: `Value must be at least ${p.limit}`, target: p.limit, value: e.data };
        break;
      case 'maximum':
      case 'exclusiveMaximum':
        rule = 'maximum';
        detail = { message: `Value must be at most ${p.limit}`, target: p.limit, value: e.data };
        break;
      case 'minLength':
        detail = { message: `String must be at least ${p.limit} characters`, target: p.limit, value: e.data };
        break;
      case 'maxLength':
        detail = { message: `String must not be more than ${p.limit} characters`, target: p.limit, value: e.data };
        break;
      case 'minItems':
        detail = { message: `The list must have at least ${p.limit} items`, target: p.limit, value: e.data };
        break;
      case 'maxItems':
        detail = { message: `The list is more than ${p.limit} items`, target: p.limit, value: e.data };
        break;
      case 'uniqueItems':
        detail = { message: 'List of items is not unique', value: e.data };
        break;
      case 'pattern':
        detail = { message: `Failed to match pattern '${p.pattern}'`, target: p.pattern, value: e.data };
        break;
      case 'propertyNames':
        field = join(base, String(p.propertyName));
        rule = 'pattern';
        detail = { message: 'Key is not valid', value: p.propertyName };
        break;
      case 'format':
        rule = p.format === 'regex' ? 'invalid' : 'wrong_format';
        detail = {
          message: p.format === 'regex' ? 'Value is not a valid regular expression' : 'Field is not in the correct format',
          format: p.format,
          value: e.data,
        };
        break;
      default:
        detail = { message: e.message ?? 'Value is not valid', value: e.data };
    }
    if (!field) field = 'data';
    out[field] = { ...(out[field] ?? {}), [rule]: detail };
  }
  return out;
}

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
