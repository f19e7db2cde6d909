import type { Ajv, ErrorObject, SchemaValidateFunction } from 'ajv';
import { patternRefusal } from '../util/linear-regex.js';

/**
 * Validates `data` in place with the named schema (defaults filled, string forms fixed); answers
 * its errors, none when valid, or `missing` when no schema has that name.
 */
export type NestedCheck = (name: string, data: unknown) => ErrorObject[] | undefined | 'missing';

/** An error of one of tel's keywords: Kazoo's extension errors carry a rule (`error`) and a message. */
function extensionError(instancePath: string, message: string, value: unknown): ErrorObject {
  return { keyword: 'x-extension', instancePath, schemaPath: '', params: { rule: 'error', message, value }, message };
}

/**
 * The checks Kazoo's schemas ask of its own validator (`kazoo-validation`, `kazoo-regexp`), as
 * keywords of tel's schemas:
 * - `x-client-url`: an http or https URL with a host (Kazoo's client URL check; tel lets loopback
 *   and private hosts through, since a lab box calls local consumers);
 * - `x-regex`: a regular expression RE2's linear-time engine takes (util/linear-regex.ts: a tenant's
 *   pattern must never hold the server); `x-regex-keys`: an object whose keys are such (a dial plan);
 * - `x-module: "callflows" | "metaflows"`: a callflow or metaflow action (`{module, data,
 *   children}`), whose `module` must name a schema `<family>.<module>` that then validates `data`.
 */
export function addKazooKeywords(ajv: Ajv, nested: NestedCheck): void {
  ajv.addKeyword({
    keyword: 'x-client-url',
    type: 'string',
    errors: true,
    validate: keyword((_on: boolean, url: string, at) => (isClientUrl(url) ? undefined : [extensionError(at, 'invalid client URL', url)])),
  });
  ajv.addKeyword({
    keyword: 'x-regex',
    type: 'string',
    errors: true,
    validate: keyword((_on: boolean, value: string, at, root) => patternErrors([[at, value]], root)),
  });
  ajv.addKeyword({
    keyword: 'x-regex-keys',
    type: 'object',
    errors: true,
    validate: keyword((_on: boolean, node: Record<string, unknown>, at, root) =>
      patternErrors(Object.keys(node).map((k) => [`${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, k]), root),
    ),
  });
  ajv.addKeyword({
    keyword: 'x-module',
    type: 'object',
    errors: true,
    modifying: true,
    validate: keyword((family: string, node: Record<string, unknown>, at) => {
      const module = node.module;
      if (typeof module !== 'string') return undefined;
      const errs = nested(`${family}.${module}`, node.data);
      if (errs === 'missing') return [extensionError(`${at}/module`, `unable to find ${family.replace(/s$/, '')} schema for module ${module}`, module)];
      // ajv rewrites a keyword's errors (their data and schema become the action's): carry them whole
      return errs?.map((e) => ({ keyword: 'x-nested', instancePath: `${at}/data${e.instancePath}`, schemaPath: '', params: { error: e } }));
    }),
  });
}

/** An ajv keyword function from a check that answers its errors (none when the value passes). */
function keyword<S, D>(check: (schema: S, data: D, instancePath: string, rootData: unknown) => ErrorObject[] | undefined): SchemaValidateFunction {
  const fn: SchemaValidateFunction = (schema: S, data: D, _parent?: unknown, cxt?: { instancePath: string; rootData: unknown }) => {
    const errs = check(schema, data, cxt?.instancePath ?? '', cxt?.rootData);
    fn.errors = errs;
    return !errs;
  };
  return fn;
}

/** An http or https URL naming a host. */
function isClientUrl(url: string): boolean {
  if (!/^https?:\/\/[^/?#\s]/.test(url)) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

/** The patterns one document may hold, and their characters in all: compiling them costs about a microsecond a character. */
export const MAX_PATTERNS_PER_DOCUMENT = 64;
export const MAX_PATTERN_CHARS_PER_DOCUMENT = 4096;

/** The patterns seen in each document being checked (a document is checked again after its string forms are fixed): their lengths by where they are, and in all. */
const patternsSeen = new WeakMap<object, { lengths: Map<string, number>; chars: number }>();

/**
 * The errors of patterns found at these places of a document: one RE2 does not take is Kazoo's
 * `invalid regular expression` (as its `kazoo-regexp`); past the document's budget (a count and
 * characters in all, bounding what a write spends compiling them), each pattern over it.
 */
function patternErrors(found: [at: string, source: string][], root: unknown): ErrorObject[] | undefined {
  const doc = typeof root === 'object' && root !== null ? root : {};
  let seen = patternsSeen.get(doc);
  if (!seen) patternsSeen.set(doc, (seen = { lengths: new Map(), chars: 0 }));
  const errs: ErrorObject[] = [];
  for (const [at, source] of found) {
    seen.chars += source.length - (seen.lengths.get(at) ?? 0);
    seen.lengths.set(at, source.length);
    if (seen.lengths.size > MAX_PATTERNS_PER_DOCUMENT || seen.chars > MAX_PATTERN_CHARS_PER_DOCUMENT) {
      errs.push(extensionError(at, `a document holds at most ${MAX_PATTERNS_PER_DOCUMENT} regular expressions, of ${MAX_PATTERN_CHARS_PER_DOCUMENT} characters in all`, source));
    } else if (patternRefusal(source) !== undefined) {
      errs.push(extensionError(at, `invalid regular expression: '${source}'`, source));
    }
  }
  return errs.length > 0 ? errs : undefined;
}
