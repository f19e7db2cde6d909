import type { Ajv, ErrorObject, SchemaValidateFunction } from 'ajv';

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
 * - `x-regex`: a regular expression that compiles;
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
    validate: keyword((_on: boolean, value: string, at) =>
      compiles(value) ? undefined : [extensionError(at, `invalid regular expression: '${value}'`, value)],
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
function keyword<S, D>(check: (schema: S, data: D, instancePath: string) => ErrorObject[] | undefined): SchemaValidateFunction {
  const fn: SchemaValidateFunction = (schema: S, data: D, _parent?: unknown, cxt?: { instancePath: string }) => {
    const errs = check(schema, data, cxt?.instancePath ?? '');
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

/** Whether a regular expression compiles (PCRE's leading inline flags, such as `(?i)`, are read as flags). */
function compiles(source: string): boolean {
  const m = /^\(\?([imsx]+)\)/.exec(source);
  try {
    new RegExp(m ? source.slice(m[0].length) : source, m ? [...new Set(m[1].replace('x', ''))].join('') : '');
    return true;
  } catch {
    return false;
  }
}
