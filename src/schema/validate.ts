import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, errors, type ValidationErrors } from '../errors.js';
import { noteCompilation } from './compilations.js';
import { reportable, toKazooErrors } from './kazoo-errors.js';
import { isPrintable, PRINTABLE } from './formats.js';
import { addKazooKeywords } from './keywords.js';
import { loadPatternEngine, patternRefusal } from '../util/linear-regex.js';
import { namedSchema, onSchemaDefined, schemaName, type JsonSchema } from './registry.js';

export type { JsonSchema } from './registry.js';
export { toKazooErrors } from './kazoo-errors.js';
export { PRINTABLE } from './formats.js';

let shared: Ajv | undefined;

/**
 * The one Ajv instance, made on first use: building it and compiling schemas is most of what a
 * short command would otherwise spend starting up, for schemas it never uses. It knows every named
 * schema (registry.ts), so that `{$ref: "caller_id"}` resolves as in Kazoo's schemas.
 */
function ajvInstance(): Ajv {
  if (shared) return shared;
  const ajv = new Ajv({
    allErrors: true,
    // Errors carry the offending value, as Kazoo's do.
    verbose: true,
    useDefaults: true,
    // Kazoo's own coercion (fixStringForms) replaces ajv's, which also makes strings of numbers.
    coerceTypes: false,
    strict: false,
    // Compiling is what a server pays, in pieces, right after it starts (compileValidators): each
    // named schema compiled once and called, not inlined into every kind that refers to it; tel's
    // own schemas not checked against the meta-schema; the generated code not optimised. Measured
    // on the kinds' schemas (2 shared cores): inlining made the devices' validator alone take
    // 218 ms (26 ms without); every validator together compiles in 115–135 ms, none over 31 ms,
    // against 230–900 ms and up to 311 ms when ajv optimises the code, and checking a device or a
    // webhook document costs the same 20–26 µs either way.
    inlineRefs: false,
    validateSchema: false,
    code: { optimize: false },
  });
  // The formats Kazoo's validator checks, as it checks them; `uri` and `regex` it does not check.
  ajv.addFormat('email', /^[^@]+@[^@]+$/);
  ajv.addFormat('uri', true);
  ajv.addFormat('regex', true);
  // tel's own: an absolute http(s) URL with a host (queue notification URLs, whitelabel API URLs).
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
  // names and labels end up in terminals (`tel webhooks list`, `tel watch`, `tel sink`): no control characters
  ajv.addFormat(PRINTABLE, { type: 'string', validate: isPrintable });
  addKazooKeywords(ajv, (name, data) => {
    if (!namedSchema(name)) return 'missing';
    return runChecked(compiled(ajv, name), data);
  });
  onSchemaDefined((name, schema) => ajv.addSchema(schema, name));
  shared = ajv;
  return ajv;
}

function compiled(ajv: Ajv, name: string): ValidateFunction {
  const fn = ajv.getSchema(name);
  if (!fn) throw new Error(`no schema named ${name}`);
  return fn;
}

/**
 * Validates `doc` in place the way Kazoo's crossbar does (`schema_strict_validation` off): the
 * schema's defaults are filled; when it fails, the string form of an integer, a number or a boolean
 * where the schema wants one is turned into the value (`"42"` → 42, `"4.5"` → 5 for an integer,
 * `"true"` → true; never the other way) and the document validated again, until it passes or
 * nothing more can be fixed. Answers the errors that remain, or undefined.
 */
function runChecked(fn: ValidateFunction, doc: unknown): ErrorObject[] | undefined {
  // each round fixes at least one value, which then stays fixed: this ends
  for (;;) {
    if (fn(doc)) return undefined;
    const errs = reportable(fn.errors ?? []);
    // ajv keeps the last errors on the function, and with `verbose` they hold the document: a
    // hostile 5 MB body would stay in memory until the schema's next check
    fn.errors = null;
    if (!fixStringForms(doc, errs)) return errs;
  }
}

/** A compiled validator: fills defaults and fixes string forms in place, or throws a Kazoo-shaped 400. */
export interface Validator<T = Record<string, unknown>> {
  (doc: unknown): T;
  schema: JsonSchema;
  /** the same check, returning the errors instead of throwing */
  check(doc: unknown): ValidationErrors | undefined;
  /** compiles the schema now, if it is not yet: for a thread that will check documents of this kind */
  compile(): void;
}

/** The compilers of the validators made so far, emptied by compileValidators. */
const uncompiled: (() => unknown)[] = [];

/** Compiles a schema once into a validator (a named schema by its name, so that it is compiled once). */
export function compileValidator<T = Record<string, unknown>>(schema: JsonSchema): Validator<T> {
  // compiled at the first document checked, not when the module is loaded
  let fn: ValidateFunction | undefined;
  const compile = () => {
    if (!fn) {
      const ajv = ajvInstance();
      const name = schemaName(schema);
      fn = name ? compiled(ajv, name) : ajv.compile(schema);
      noteCompilation();
    }
    return fn;
  };
  uncompiled.push(compile);
  const check = (doc: unknown): ValidationErrors | undefined => {
    const fn = compile();
    dropNulls(doc);
    const errs = runChecked(fn, doc);
    return errs ? toKazooErrors(errs) : undefined;
  };
  const validate = ((doc: unknown) => {
    const errs = check(doc);
    if (errs) throw errors.validation(errs);
    return doc as T;
  }) as Validator<T>;
  validate.schema = schema;
  validate.check = check;
  validate.compile = () => void compile();
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

/** Erlang's forms of an integer (`-12`, `+3`) and of a float (`4.5`, `1.0e3`: digits on both sides of the point). */
const INTEGER_FORM = /^[+-]?\d+$/;
const FLOAT_FORM = /^[+-]?\d+\.\d+(?:[eE][+-]?\d+)?$/;

/** Rounds half away from zero, as Erlang's round/1. */
const roundHalfAway = (n: number) => Math.sign(n) * Math.round(Math.abs(n));

/**
 * The value Kazoo's `fix_js_types` makes of `value` for a field of `type`, or undefined when it
 * cannot: a string of digits for an integer (a float form and a fractional number are rounded), a
 * string of a number for a number, `"true"`/`"false"` for a boolean.
 */
export function fixedForm(type: string, value: unknown): number | boolean | undefined {
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : undefined;
  if (type !== 'integer' && type !== 'number') return undefined;
  if (typeof value === 'number') return type === 'integer' && Number.isFinite(value) ? roundHalfAway(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (INTEGER_FORM.test(value)) return Number(value);
  if (!FLOAT_FORM.test(value)) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) return undefined;
  return type === 'integer' ? roundHalfAway(n) : n;
}

/** Fixes, in `doc`, the values of the type errors Kazoo fixes (a field of one type only); answers whether any was. */
function fixStringForms(doc: unknown, errs: readonly ErrorObject[]): boolean {
  let fixed = false;
  for (const e of errs) {
    if (e.keyword !== 'type' || typeof e.schema !== 'string' || !e.instancePath) continue;
    const value = fixedForm(e.schema, e.data);
    if (value === undefined) continue;
    const path = e.instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let holder = doc as Record<string, unknown>;
    for (const k of path.slice(0, -1)) holder = holder[k] as Record<string, unknown>;
    holder[path[path.length - 1]] = value;
    fixed = true;
  }
  return fixed;
}

/**
 * Compiles the validators not compiled yet in the background, one a turn of the event loop:
 * requests are answered in between, and a listening server's first writes of each kind find
 * their schema ready. Then, in two more turns, the engine of tenants' patterns is loaded and
 * compiles its first one (about 20 ms each, which the first pattern written would otherwise pay).
 * `done` is called once all is ready. `pause`, asked after each validator, may answer a promise
 * the compilation waits for (a collection of the garbage it made so far).
 */
export function compileValidatorsInBackground(done?: () => void, pause?: () => Promise<void> | undefined): void {
  const steps = [loadPatternEngine, () => patternRefusal('^(\\+?1)?([2-9][0-9]{9})$')];
  const next = () => {
    if (compileValidators(1) > 0) {
      const waiting = pause?.();
      if (waiting) void waiting.then(() => setImmediate(next).unref());
      else setImmediate(next).unref();
    } else if (steps.length > 0) {
      steps.shift()!();
      setImmediate(next).unref();
    } else done?.();
  };
  setImmediate(next).unref();
}

/**
 * Removes `null` members of objects, at any depth: tel reads a null as "not set" (and then the
 * default applies), as a PATCH does in Kazoo.
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
