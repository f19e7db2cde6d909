/** A JSON Schema (draft-07 as ajv takes it, plus tel's `x-` keywords: see keywords.ts). */
export type JsonSchema = Record<string, unknown>;

const byName = new Map<string, JsonSchema>();
const nameOf = new WeakMap<JsonSchema, string>();
const listeners: ((name: string, schema: JsonSchema) => void)[] = [];

/**
 * Names a schema, as Kazoo names its schema files (`users`, `caller_id`, `callflows.device`): other
 * schemas refer to it with `ref(schema)` (`{$ref: name}`), the validator resolves those names, and
 * the OpenAPI document lists it under `components.schemas` by that name.
 */
export function defineSchema<T extends JsonSchema>(name: string, schema: T): T {
  if (byName.has(name)) throw new Error(`schema ${name} is defined twice`);
  byName.set(name, schema);
  nameOf.set(schema, name);
  for (const l of listeners) l(name, schema);
  return schema;
}

/** `{$ref: name}` for a named schema (importing it is what makes sure it is defined). */
export function ref(schema: JsonSchema): { $ref: string } {
  const name = nameOf.get(schema);
  if (!name) throw new Error('ref() of a schema that defineSchema() did not name');
  return { $ref: name };
}

/** The name a schema was defined with, if any. */
export function schemaName(schema: JsonSchema): string | undefined {
  return nameOf.get(schema);
}

/** A named schema, by name. */
export function namedSchema(name: string): JsonSchema | undefined {
  return byName.get(name);
}

/** Every named schema, in the order defined. */
export function namedSchemas(): [string, JsonSchema][] {
  return [...byName];
}

/** Calls `listener` for every schema named so far and every one named later. */
export function onSchemaDefined(listener: (name: string, schema: JsonSchema) => void): void {
  for (const [name, schema] of byName) listener(name, schema);
  listeners.push(listener);
}
