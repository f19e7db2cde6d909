import { describe, expect, it } from 'vitest';
import { canonical, changedFields, sameJson } from './compare.js';

describe('comparing documents', () => {
  const shared = { a: 1 };
  it.each([
    ['equal strings', 'x', 'x'],
    ['different strings', 'x', 'y'],
    ['a number and its text', 1, '1'],
    ['0 and -0 (JSON writes both 0)', 0, -0],
    ['NaN and null (JSON writes NaN as null)', NaN, null],
    ['null and a missing value', null, undefined],
    ['two missing values', undefined, undefined],
    ['keys in another order', { a: 1, b: { c: [1, 2], d: null } }, { b: { d: null, c: [1, 2] }, a: 1 }],
    ['a key set to undefined and no key (JSON leaves both out)', { a: 1, b: undefined }, { a: 1 }],
    ['a key with null and no key', { a: 1, b: null }, { a: 1 }],
    ['a list in another order', [1, 2], [2, 1]],
    ['a shorter list', [1, 2], [1]],
    ['undefined and null in a list (JSON writes both null)', [undefined], [null]],
    ['a list and an object of its indexes', [1], { 0: 1 }],
    ['the same object twice', shared, shared],
    ['nested objects that differ deep down', { a: { b: { c: [{ d: 1 }] } } }, { a: { b: { c: [{ d: 2 }] } } }],
    ['a date and its JSON text', new Date(0), '1970-01-01T00:00:00.000Z'],
    ['an empty object and an empty list', {}, []],
  ])('%s: the same as comparing their JSON text', (_what, a, b) => {
    expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
    expect(sameJson(b, a)).toBe(canonical(a) === canonical(b));
  });

  it('changedFields names the top-level fields whose JSON differs, sorted', () => {
    expect(changedFields({ b: { x: [1] }, a: 'same', c: 1, d: undefined }, { a: 'same', b: { x: [2] }, e: null })).toEqual(['b', 'c', 'e']);
  });
});
