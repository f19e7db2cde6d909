import { ref, type JsonSchema } from '../schema/registry.js';

// The JSON Schemas of what routes answer under `data`, for the OpenAPI document (RouteDef.response):
// a stored document of a kind, a listing's rows, a deletion.

const ID = { type: 'string', description: "the document's id" };

/** A document of a kind as it is answered: its fields (the kind's named schema) and its `id`, plus `extra` fields. */
export function documentAnswer(kind: JsonSchema, extra: Record<string, JsonSchema> = {}, required: string[] = []): JsonSchema {
  return { allOf: [ref(kind), { type: 'object', required: ['id', ...required], properties: { id: ID, ...extra } }] };
}

/** A deleted document as it is answered: the document and `_read_only.deleted`. */
export function deletedAnswer(kind: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema {
  const deleted = { type: 'object', properties: { deleted: { const: true } }, required: ['deleted'] };
  return documentAnswer(kind, { ...extra, _read_only: deleted }, ['_read_only']);
}

/** A listing's rows: `id` and the named fields, typed as the kind types them (`fields` beyond its own in `extra`). */
export function listAnswer(kind: JsonSchema, fields: readonly string[], extra: Record<string, JsonSchema> = {}): JsonSchema {
  const props = (kind.properties ?? {}) as Record<string, JsonSchema>;
  const row: Record<string, JsonSchema> = { id: ID };
  for (const f of fields) row[f] = props[f] ?? extra[f] ?? {};
  return { type: 'array', items: { type: 'object', required: ['id'], properties: { ...row, ...extra } } };
}
