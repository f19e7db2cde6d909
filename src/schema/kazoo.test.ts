import { describe, expect, it } from 'vitest';
import '../modules/index.js';
import { namedSchemas, type JsonSchema } from './registry.js';
import { compileValidator, fixedForm } from './validate.js';
import { callflowsAction } from './callflow-actions.js';

describe("Kazoo's string forms: what fix_js_types turns into a value, and what it leaves", () => {
  it.each([
    ['integer', '42', 42],
    ['integer', '+3', 3],
    ['integer', '-7', -7],
    ['integer', '007', 7],
    ['integer', '4.5', 5],
    ['integer', '4.4', 4],
    ['integer', '-4.5', -5],
    ['integer', 4.5, 5],
    ['integer', '1.0e3', 1000],
    ['number', '4.5', 4.5],
    ['number', '12', 12],
    ['boolean', 'true', true],
    ['boolean', 'false', false],
  ])('a %s from %j: %j', (type, value, fixed) => {
    expect(fixedForm(type, value)).toBe(fixed);
  });

  it.each([
    ['integer', 'twelve'],
    ['integer', ' 4'],
    ['integer', '1e5'],
    ['integer', '4.'],
    ['integer', true],
    ['number', '.5'],
    ['boolean', 'TRUE'],
    ['boolean', 1],
    ['boolean', 'yes'],
    ['string', 42],
    ['string', true],
  ])('no %s from %j', (type, value) => {
    expect(fixedForm(type, value)).toBeUndefined();
  });
});

const doc = compileValidator({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 8 },
    count: { type: 'integer', minimum: 0, default: 3 },
    ids: { type: 'array', items: { type: 'integer' } },
    flag: { type: 'boolean' },
    either: { type: ['integer', 'string'] },
    mood: { type: 'string', enum: ['calm', 'busy'] },
    box: {
      type: 'object',
      default: {},
      properties: { on: { type: 'boolean', default: false }, inner: { type: 'object', default: {}, properties: { n: { type: 'integer', default: 7 } } } },
    },
    strict: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    choice: { oneOf: [{ type: 'integer' }, { type: 'string', enum: ['x'] }] },
    url: { type: 'string', 'x-client-url': true },
    pattern_list: { type: 'array', items: { type: 'string', 'x-regex': true } },
    email: { type: 'string', format: 'email' },
    flow: { $ref: 'callflows.action' },
  },
});

function errorsOf(value: Record<string, unknown>) {
  return doc.check(value) ?? {};
}

describe("validation as Kazoo's crossbar does it", () => {
  it('turns string forms into values where the schema wants one, items included, and never a number into a string', () => {
    const d = { name: 'ab', count: '5', ids: ['1', '2.5'], flag: 'true', either: 42 };
    expect(doc.check(d)).toBeUndefined();
    expect(d).toMatchObject({ count: 5, ids: [1, 3], flag: true, either: 42 });
    expect(errorsOf({ name: 42 })).toEqual({ name: { type: { message: 'Value did not match type(s): string', target: 'string', value: 42 } } });
    expect(errorsOf({ name: 'ab', count: 'twelve' })).toEqual({ count: { type: { message: 'Value did not match type(s): integer', target: 'integer', value: 'twelve' } } });
    // a field of several types is not fixed
    expect(errorsOf({ name: 'ab', either: true })).toEqual({ either: { type: expect.objectContaining({ target: 'integer, string' }) } });
  });

  it('fills defaults where a property is missing, and the defaults of a default object', () => {
    const d: Record<string, unknown> = { name: 'ab' };
    expect(doc.check(d)).toBeUndefined();
    expect(d).toEqual({ name: 'ab', count: 3, box: { on: false, inner: { n: 7 } } });
    const kept: Record<string, unknown> = { name: 'ab', count: 0, box: { on: true } };
    doc.check(kept);
    expect(kept).toEqual({ name: 'ab', count: 0, box: { on: true, inner: { n: 7 } } });
    // null is "not set": the default applies
    const nulls: Record<string, unknown> = { name: 'ab', count: null };
    doc.check(nulls);
    expect(nulls.count).toBe(3);
  });

  it("words each rule's error as Kazoo does, with dotted paths", () => {
    expect(errorsOf({ name: 'a', ids: [1, 'x'], mood: 'sad', count: -1 })).toEqual({
      name: { minLength: { message: 'String must be at least 2 characters', target: 2, cause: 'a', value: 'a' } },
      'ids.1': { type: { message: 'Value did not match type(s): integer', target: 'integer', value: 'x' } },
      mood: { enum: { message: 'Value not found in enumerated list of values', target: ['calm', 'busy'], value: 'sad' } },
      count: { minimum: { message: 'Value must be at least 0', target: 0, value: -1 } },
    });
    expect(errorsOf({ count: 1 })).toEqual({ name: { required: { message: 'Field is required but missing', value: expect.objectContaining({ count: 1 }) } } });
    expect(errorsOf({ name: 'ab', strict: { a: 'x', b: 'y' } })).toEqual({
      'strict.b': { additionalProperties: { message: 'Strict checking of data is enabled; only include schema-defined properties', value: { a: 'x', b: 'y' } } },
    });
    expect(errorsOf({ name: 'ab', choice: 'y' })).toEqual({ choice: { not_one_schema_valid: { message: 'failed to validate', value: 'y' } } });
    expect(errorsOf({ name: 'ab', email: 'nobody' })).toEqual({ email: { wrong_format: { message: 'Field is not in the correct format', value: 'nobody', format: 'email' } } });
  });

  it("checks what Kazoo's own validator checks: client URLs, regular expressions, callflow modules", () => {
    expect(errorsOf({ name: 'ab', url: 'ftp://example.com' })).toEqual({ url: { error: { message: 'invalid client URL', value: 'ftp://example.com' } } });
    expect(errorsOf({ name: 'ab', url: 'http://127.0.0.1:9000/hook' })).toEqual({});
    expect(errorsOf({ name: 'ab', pattern_list: ['^ok$', '(?i)^ok$', '('] })).toEqual({ 'pattern_list.2': { error: { message: "invalid regular expression: '('", value: '(' } } });
    expect(errorsOf({ name: 'ab', flow: { module: 'teleport', data: {} } })).toEqual({
      'flow.module': { error: { message: 'unable to find callflow schema for module teleport', value: 'teleport' } },
    });
    // a module's data is its module's: defaults filled, string forms fixed, errors under data
    const d = { name: 'ab', flow: { module: 'user', data: { id: 'u1', timeout: '30' }, children: { _: { module: 'voicemail', data: { max_message_length: 'long' } } } } };
    expect(errorsOf(d)).toEqual({
      'flow.children._.data.max_message_length': { type: { message: 'Value did not match type(s): integer', target: 'integer', value: 'long' } },
    });
    expect(d.flow.data).toEqual({ id: 'u1', timeout: 30, delay: 0, strategy: 'simultaneous' });
    expect(callflowsAction.required).toEqual(['data', 'module']);
  });
});

describe("tel's schemas", () => {
  /** The defaults a schema declares, each with the schema of its property. */
  function defaults(name: string, schema: JsonSchema, at: string, out: [string, JsonSchema][]) {
    for (const [k, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      if (sub.default !== undefined) out.push([`${name}: ${at}${k}`, sub]);
      defaults(name, sub, `${at}${k}.`, out);
    }
    for (const sub of [schema.items, schema.additionalProperties, ...Object.values(schema.patternProperties ?? {})]) {
      if (sub && typeof sub === 'object') defaults(name, sub as JsonSchema, `${at}*.`, out);
    }
  }
  const all: [string, JsonSchema][] = [];
  for (const [name, schema] of namedSchemas()) defaults(name, schema, '', all);

  it.each(all)("%s: a default of the property's type that its schema takes (Kazoo applies no other)", (_where, schema) => {
    expect(schema.type).toBeDefined();
    const value = structuredClone(schema.default);
    expect(compileValidator({ type: 'object', properties: { v: schema } }).check({ v: value })).toBeUndefined();
  });
});
