import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { namedSchema, namedSchemas, type JsonSchema } from '../../schema/registry.js';
import { compileValidator, type Validator } from '../../schema/validate.js';
import type { TelModule } from '../types.js';

/** The names of tel's JSON Schemas, as Kazoo names its schema files, in order. */
export function schemaNames(): string[] {
  return namedSchemas()
    .map(([name]) => name)
    .sort();
}

/** tel's keywords as Kazoo's schemas write them (its validator's own checks). */
function kazooKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(kazooKeywords);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'x-regex') out['kazoo-regexp'] = v;
    else if (k === 'x-client-url') out['kazoo-validation'] = v;
    else if (k !== 'x-module') out[k] = kazooKeywords(v);
  }
  // a callflow or metaflow action: Kazoo marks its `module` and `data` for its own check
  const module = (node as Record<string, unknown>)['x-module'];
  const props = out.properties as Record<string, Record<string, unknown>> | undefined;
  if (module && props) for (const p of ['module', 'data']) if (props[p]) props[p] = { ...props[p], 'kazoo-validation': true };
  return out;
}

/** A named schema as Kazoo's `schemas` endpoint answers its file: draft-04, its name as `id`. */
export function schemaDocument(name: string): Record<string, unknown> {
  const schema = namedSchema(name);
  if (!schema) throw errors.badIdentifier(name);
  return { $schema: 'http://json-schema.org/draft-04/schema#', id: name, ...(kazooKeywords(schema) as JsonSchema) };
}

/** Validators by schema name, made when the module starts (a server compiles them in the background). */
const validators = new Map<string, Validator>();

/**
 * Checks `data` against a named schema as a write of it is checked: answers it with the defaults
 * filled (and string forms of values fixed), or the 400 with Kazoo's errors.
 */
export function validateWith(name: string, data: Record<string, unknown>): Record<string, unknown> {
  if (!namedSchema(name)) throw errors.badIdentifier(name);
  let validate = validators.get(name);
  if (!validate) validators.set(name, (validate = compileValidator(namedSchema(name)!)));
  return validate({ ...data });
}

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'schemas',
    auth: 'none',
    response: { type: 'array', items: { type: 'string', description: "a schema's name" } },
    handler: () => ({ data: schemaNames() }),
  },
  {
    method: 'GET',
    path: 'schemas/:name',
    auth: 'none',
    response: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, $schema: { type: 'string' } } },
    handler: (ctx) => ({ data: schemaDocument(ctx.params.name) }),
  },
  {
    method: 'PUT',
    path: 'schemas/:name/validation',
    body: { type: 'object', description: 'the document to check against the schema' },
    response: { type: 'object', description: 'the document as it would be stored: defaults filled' },
    // a check creates nothing: 200
    errors: [200],
    handler: (ctx) => ({ status: 200, data: validateWith(ctx.params.name, dataObject(ctx)) }),
  },
];

/**
 * `/v2/schemas`: Kazoo's `cb_schemas` — tel's own JSON Schemas (those its documents are checked
 * with) in Kazoo's form, and a check of a document against one. Reading them needs no token.
 */
export const schemasModule: TelModule = {
  name: 'schemas',
  endpoints: ['schemas'],
  routes,
  init(_core: Core) {
    for (const name of schemaNames()) if (!validators.has(name)) validators.set(name, compileValidator(namedSchema(name)!));
  },
};
