import type { ValidationErrors } from '../../errors.js';
import { compileValidator, mergeErrors, type Validator } from '../../schema/validate.js';

/** A module's check of a category it owns beyond its keys' schemas, run before it is stored (errors: 400). */
export type ConfigCheck = (doc: ConfigDoc) => ValidationErrors | undefined;

/** A stored configuration category: its nodes (`default` is the one tel reads) by name. */
export interface ConfigDoc {
  id: string;
  default?: Record<string, unknown>;
  [node: string]: unknown;
}

/** One key of a category, as a JSON Schema: type, bounds, built-in value and meaning. */
export interface ConfigKey {
  type: 'integer' | 'number' | 'boolean' | 'string' | 'object' | 'array';
  /** what the key does, one or two sentences (docs/configuration.md shows it) */
  description: string;
  /** the built-in value, shown by `tel config get` and `?with_defaults=true`; absent when there is none */
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  pattern?: string;
  /** a setting of the whole system: an account's own settings of the category refuse it (400) */
  systemOnly?: boolean;
}

/**
 * A configuration category, declared once by the module that reads it: the configuration
 * service takes its defaults and checks a document against it before storing it, and
 * `npm run docs` writes docs/configuration.md from it. Keys not declared are kept, unchecked,
 * as Kazoo keeps them.
 */
export interface ConfigCategory {
  /** the canonical name (`webhooks`, `crossbar.auth`) */
  name: string;
  /** what the category governs, one or two sentences */
  description: string;
  keys: Record<string, ConfigKey>;
  /** a check of the whole document beyond its keys (the system restriction template) */
  check?: ConfigCheck;
}

/** The declarations by name; a category declared twice is a mistake in the modules' wiring. */
export function categoriesByName(declared: readonly ConfigCategory[]): ReadonlyMap<string, ConfigCategory> {
  const out = new Map<string, ConfigCategory>();
  for (const c of declared) {
    if (out.has(c.name)) throw new Error(`The configuration category ${c.name} is declared twice: declare each category once.`);
    out.set(c.name, c);
    // made now (compiled later, once): a server compiles its validators as it starts, not at the first write
    nodeValidator(c);
  }
  return out;
}

/** The built-in settings of a category (the keys that have a default), as its `default` node holds them. */
export function categoryDefaults(category: ConfigCategory): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(category.keys)) if (spec.default !== undefined) out[key] = structuredClone(spec.default);
  return out;
}

const validators = new WeakMap<ConfigCategory, Validator>();

/** The validator of one node of the category: its keys' schemas without their defaults (a stored node holds only what was set). */
function nodeValidator(category: ConfigCategory): Validator {
  let v = validators.get(category);
  if (!v) {
    const properties: Record<string, unknown> = {};
    for (const [key, { default: _default, description: _d, systemOnly: _s, ...rules }] of Object.entries(category.keys)) properties[key] = rules;
    v = compileValidator({ type: 'object', properties });
    validators.set(category, v);
  }
  return v;
}

/**
 * Checks a category document: every node that is an object against the keys' schemas (string
 * forms are coerced in place, "600" to 600, as Kazoo does), then the category's own check.
 * Answers Kazoo's `{"default.key": {rule: {message}}}`, or undefined when it fits.
 */
export function checkConfigDoc(category: ConfigCategory | undefined, doc: ConfigDoc): ValidationErrors | undefined {
  if (!category) return undefined;
  const found: (ValidationErrors | undefined)[] = [];
  for (const [node, value] of Object.entries(doc)) {
    if (node === 'id' || value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const errs = nodeValidator(category).check(value);
    if (errs) found.push(Object.fromEntries(Object.entries(errs).map(([field, rules]) => [`${node}.${field}`, rules])));
  }
  found.push(category.check?.(doc));
  return mergeErrors(...found);
}
