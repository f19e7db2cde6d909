import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { MODULES } from '../../src/modules/index.js';
import { openApiDocument } from '../../src/openapi/document.js';

/**
 * The contract: every answer the HTTP tests receive validates against the OpenAPI document tel
 * serves at `/v2/openapi.json` (made here from the same modules: a test checks the two are equal).
 * An answer of a path and method the document has must be one of the statuses it lists, in the
 * shape it gives; any other answer is one of its error envelopes.
 */

type Json = Record<string, any>;

interface Operation {
  /** the path's segments: a literal, or undefined for a parameter */
  segments: (string | undefined)[];
  literals: number;
  method: string;
  pointer: string;
  op: Json;
}

let state: { doc: Json; ajv: Ajv2020; operations: Operation[]; compiled: Map<string, ValidateFunction> } | undefined;

function setup() {
  if (state) return state;
  const doc = openApiDocument(MODULES) as Json;
  // a consumer's validator: formats and tel's x- keywords are annotations, nothing is filled in
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(doc, 'openapi.json');
  const operations: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
    const segments = path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? undefined : s.toLowerCase()));
    for (const [method, op] of Object.entries(ops)) {
      const pointer = `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
      operations.push({ segments, literals: segments.filter((s) => s !== undefined).length, method, pointer, op });
    }
  }
  return (state = { doc, ajv, operations, compiled: new Map() });
}

/** The document's operations for a request path (`/v2/accounts/…`), the most literal first. */
function operationsOf(path: string): Operation[] {
  const segments = path
    .split('?')[0]
    .split('/')
    .filter(Boolean)
    .slice(1)
    .map((s) => s.toLowerCase());
  const found = setup().operations.filter(
    (o) => o.segments.length === segments.length && o.segments.every((s, i) => s === undefined || s === segments[i]),
  );
  const most = Math.max(-1, ...found.map((o) => o.literals));
  return found.filter((o) => o.literals === most);
}

function validator(pointer: string): ValidateFunction {
  const s = setup();
  let fn = s.compiled.get(pointer);
  if (!fn) s.compiled.set(pointer, (fn = s.ajv.compile({ $ref: `openapi.json#${pointer}` })));
  return fn;
}

/** The pointer to the schema of a response (following a `$ref` to the shared error answers). */
function responseSchema(op: Operation, status: number): string | undefined {
  const answer = op.op.responses?.[String(status)];
  if (!answer) return undefined;
  if (answer.$ref) return `${String(answer.$ref).slice(1)}/content/application~1json/schema`;
  if (!answer.content?.['application/json']) return '';
  return `${op.pointer}/responses/${status}/content/application~1json/schema`;
}

/** Why an answer breaks the contract, or undefined when it keeps it. */
export function contractViolation(method: string, path: string, status: number, contentType: string | null, body: unknown): string | undefined {
  if (method === 'HEAD' || method === 'OPTIONS' || !/^\/v[12](\/|$)/i.test(path)) return undefined;
  const op = operationsOf(path).find((o) => o.method === method.toLowerCase());
  let pointer: string | undefined;
  if (op) {
    pointer = responseSchema(op, status);
    if (pointer === undefined) return `${method} ${path}: ${status} is not an answer the document lists (${Object.keys(op.op.responses).join(', ')})`;
    if (pointer === '') return undefined;
  } else {
    // a path or method the document does not have: an error envelope
    if (status < 400) return `${method} ${path}: answered ${status}, but the document has no such operation`;
    pointer = '/components/schemas/ErrorEnvelope';
  }
  if (contentType !== 'application/json') return `${method} ${path}: ${status} answered ${contentType}, not application/json`;
  const fn = validator(pointer);
  if (fn(body)) return undefined;
  const e = fn.errors?.[0];
  return `${method} ${path}: ${status} does not match the document at ${e?.instancePath || '/'}: ${e?.message} (${JSON.stringify(e?.params)})`;
}
