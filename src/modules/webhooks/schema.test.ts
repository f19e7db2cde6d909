import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import { MAX_RATE_PER_S, validateWebhook, withinBounds } from './schema.js';

/** The validation details a document is refused with. */
function refusedWith(doc: Record<string, unknown>): Record<string, Record<string, Record<string, unknown>>> {
  try {
    validateWebhook(doc);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) return err.data as Record<string, Record<string, Record<string, unknown>>>;
    throw err;
  }
  throw new Error('expected a refusal');
}

const hook = (over: Record<string, unknown>) => ({ name: 'Objects', uri: 'https://crm.example.com/hook', hook: 'object', ...over });

describe('a webhook document read with today\'s bounds', () => {
  it.each([
    ['a pace above the highest', { rate_limit_per_s: 20_000 }, { rate_limit_per_s: MAX_RATE_PER_S }],
    ['a pace under 0.01 a second, and no retries', { rate_limit_per_s: 1e-7 }, { rate_limit_per_s: 0.01 }],
    ['retries above 4, and no pace', { retries: 5 }, { retries: 4 }],
    ['negative retries beside a pace in range', { retries: -1, rate_limit_per_s: 2.5 }, { retries: 0, rate_limit_per_s: 2.5 }],
    ['values in range', { retries: 4, rate_limit_per_s: MAX_RATE_PER_S }, { retries: 4, rate_limit_per_s: MAX_RATE_PER_S }],
  ])('%s reads as the bound, the other field untouched', (_what, stored, read) => {
    expect(withinBounds({ name: 'x', ...stored })).toStrictEqual({ name: 'x', ...read });
  });
});

describe('the object filters of a webhook', () => {
  it('"all" is an action and a type; doc_updated an action', () => {
    expect(() => validateWebhook(hook({ custom_data: { action: 'all', type: 'all' }, modifiers: { types: ['all', 'device'], action: 'doc_updated' } }))).not.toThrow();
  });

  it('an unknown type, in type or types, is refused with the list of known ones', () => {
    const errs = refusedWith(hook({ modifiers: { type: 'spaceship' }, custom_data: { types: ['device', 'rocket'] } }));
    expect(errs['modifiers.type'].enum).toMatchObject({ message: 'Value not found in enumerated list of values', value: 'spaceship' });
    expect(errs['modifiers.type'].enum.target).toEqual(expect.arrayContaining(['all', 'device', 'user']));
    expect(errs['custom_data.types'].enum).toMatchObject({ message: 'Value not found in enumerated list of values', value: ['device', 'rocket'] });
  });

  it('a secret of the wrong form says what form it must have', () => {
    expect(refusedWith(hook({ secret: 'short' })).secret).toEqual({ invalid: { message: 'secret must be whsec_ followed by base64 of 24 to 64 bytes' } });
  });
});
