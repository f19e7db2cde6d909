import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { schemaCompilations } from './compilations.js';
import { compileValidator, compileValidators, compileValidatorsInBackground } from './validate.js';

const hook = compileValidator({
  type: 'object',
  required: ['uri'],
  properties: {
    uri: { type: 'string', format: 'http-uri' },
    enabled: { type: 'boolean', default: true },
    retries: { type: 'integer', minimum: 0, maximum: 4 },
    nested: { type: 'object', properties: { label: { type: 'string', minLength: 2 } } },
  },
});

function errorsOf(doc: unknown): Record<string, unknown> {
  try {
    hook(doc);
  } catch (err) {
    return (err as ApiError).data as Record<string, unknown>;
  }
  return {};
}

describe('schema validation', () => {
  it.each(['http://example.com/hook', 'https://127.0.0.1:9000/a?b=1', 'HTTP://h'])('accepts the absolute http(s) URI %s', (uri) => {
    expect(errorsOf({ uri })).toEqual({});
  });

  it.each(['http:///b', 'ftp://example.com', 'example.com/hook', 'http://', 'http:// spaced'])('refuses %s as an http(s) URI', (uri) => {
    expect(errorsOf({ uri })).toHaveProperty(['uri', 'wrong_format']);
  });

  it('reads null as "not set": the default applies instead of a coerced false', () => {
    const doc = hook({ uri: 'http://h', enabled: null, nested: { label: null } });
    expect(doc.enabled).toBe(true);
    expect(doc.nested).toEqual({});
  });

  it('coerces string forms and reports the offending value with the rule', () => {
    expect(hook({ uri: 'http://h', retries: '3' }).retries).toBe(3);
    expect(errorsOf({ uri: 'http://h', retries: 9 })).toEqual({
      retries: { maximum: { message: 'Value must be at most 4', target: 4, value: 9 } },
    });
    expect(errorsOf({ uri: 'http://h', nested: { label: 'x' } })).toHaveProperty(['nested.label', 'minLength', 'value'], 'x');
  });

  it('names a missing required field by its path, the object that lacks it as the value (as Kazoo)', () => {
    expect(errorsOf({ retries: 1 })).toEqual({ uri: { required: { message: 'Field is required but missing', value: { retries: 1, enabled: true } } } });
  });
});

describe('compiling in the background', () => {
  it('compiles every validator not compiled yet, then says it is done', async () => {
    compileValidator({ type: 'object', properties: { n: { type: 'integer' } } });
    await new Promise<void>((resolve) => compileValidatorsInBackground(resolve));
    expect(compileValidators(0)).toBe(0);
  });

  it('compiles one validator when asked (as the job thread does at its start), once, and its first check compiles nothing more', () => {
    const validate = compileValidator<{ n: number }>({ type: 'object', properties: { n: { type: 'integer', default: 3 } } });
    const before = schemaCompilations();
    validate.compile();
    validate.compile();
    expect(schemaCompilations()).toBe(before + 1);
    expect(validate({})).toEqual({ n: 3 });
    expect(schemaCompilations()).toBe(before + 1);
  });
});
