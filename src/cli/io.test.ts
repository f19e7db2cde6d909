import { describe, expect, it } from 'vitest';
import { prettyJson } from './io.js';

/** A value with what an indenter could trip on: escapes, quotes, brackets and commas in strings, empty objects and arrays. */
const TRICKY = {
  'a"b': ['x\\"y', 'tail\\\\', '{[,:]}', '', 'é ✓ \u2028', '\\'],
  empty: {},
  list: [],
  nested: [{ n: 1.5e-7, t: true, f: false, z: null }, [[], [{}]], -0.25],
  '12': { '': 'key "" and a backslash\\' },
};

describe('the streaming JSON indenter', () => {
  it('writes what JSON.stringify(value, null, 2) writes, whatever the cuts of the text', () => {
    const text = JSON.stringify(TRICKY);
    const expected = JSON.stringify(TRICKY, null, 2);
    for (let cut = 1; cut <= text.length; cut++) {
      const pretty = prettyJson();
      let out = '';
      for (let i = 0; i < text.length; i += cut) out += pretty(text.slice(i, i + cut));
      expect(out, `pieces of ${cut}`).toBe(expected);
    }
    for (const value of [[], {}, 'a', 1, null, [1, [2, [3]]], { a: { b: { c: [] } } }]) expect(prettyJson()(JSON.stringify(value))).toBe(JSON.stringify(value, null, 2));
  });
});
