import { describe, expect, it } from 'vitest';
import { compileArgKey, lowerSegments, matchArgs, splitPattern } from './args.js';

const ID = 'd60fb8c1f0930f2d0d9c9f878f271432';

const table: { name: string; key: string; args: string[]; matches: boolean }[] = [
  { name: '/ matches no arguments', key: '/', args: [], matches: true },
  { name: '/ does not match one argument', key: '/', args: ['a'], matches: false },
  { name: '* matches one argument', key: '*', args: ['a'], matches: true },
  { name: '* does not match no arguments', key: '*', args: [], matches: false },
  { name: '* does not match two arguments', key: '*', args: ['a', 'b'], matches: false },
  { name: '* does not match an empty argument', key: '*', args: [''], matches: false },
  { name: '# matches no arguments', key: '#', args: [], matches: true },
  { name: '# matches three arguments', key: '#', args: ['a', 'b', 'c'], matches: true },
  { name: 'a literal matches itself', key: 'sync', args: ['sync'], matches: true },
  { name: 'a literal does not match another word', key: 'sync', args: ['synced'], matches: false },
  { name: 'letter case is ignored, as routing ignores it', key: 'sync', args: ['SYNC'], matches: true },
  { name: 'letter case is ignored in the key too', key: '*/Quick_Call/*', args: ['d', 'quick_call', '1'], matches: true },
  { name: 'a composite key matches exactly its list', key: `${ID}/quickcall/1234`, args: [ID, 'quickcall', '1234'], matches: true },
  { name: 'a composite key does not match a longer list', key: `${ID}/quickcall/1234`, args: [ID, 'quickcall', '1234', 'x'], matches: false },
  { name: 'a composite key does not match a different middle', key: `${ID}/quickcall/1234`, args: [ID, 'sync', '1234'], matches: false },
  { name: 'id/# matches the id alone', key: `${ID}/#`, args: [ID], matches: true },
  { name: 'id/# matches the id and more', key: `${ID}/#`, args: [ID, 'a', 'b'], matches: true },
  { name: 'id/# does not match another id', key: `${ID}/#`, args: ['other', 'a'], matches: false },
  { name: 'id/# does not match no arguments', key: `${ID}/#`, args: [], matches: false },
  { name: '#/* needs at least one argument', key: '#/*', args: [], matches: false },
  { name: '#/* matches one argument', key: '#/*', args: ['a'], matches: true },
  { name: '#/* matches many arguments', key: '#/*', args: ['a', 'b', 'c'], matches: true },
  { name: '#/sync matches sync at the end', key: '#/sync', args: ['a', 'b', 'sync'], matches: true },
  { name: '#/sync does not match sync in the middle only', key: '#/sync', args: ['sync', 'b'], matches: false },
  { name: '#/a/* backtracks over a repeated literal', key: '#/a/*', args: ['a', 'x', 'a', 'y'], matches: true },
  { name: '#/a/* fails when the literal is last', key: '#/a/*', args: ['x', 'a'], matches: false },
  { name: 'a/#/b matches a then b with nothing between', key: 'a/#/b', args: ['a', 'b'], matches: true },
  { name: 'a/#/b matches a then b with segments between', key: 'a/#/b', args: ['a', 'x', 'y', 'b'], matches: true },
  { name: 'a/#/b does not match when b is missing at the end', key: 'a/#/b', args: ['a', 'b', 'x'], matches: false },
  { name: '#/# behaves as #', key: '#/#', args: ['a', 'b'], matches: true },
  { name: '*/# needs one argument', key: '*/#', args: [], matches: false },
  { name: '*/# matches one or more', key: '*/#', args: ['a', 'b'], matches: true },
  { name: 'a leading slash in a key is ignored', key: '/*', args: ['a'], matches: true },
  { name: 'a trailing slash in a key is ignored', key: 'sync/', args: ['sync'], matches: true },
  { name: 'an id written in capitals matches the lower-cased path id', key: ID.toUpperCase(), args: [ID], matches: true },
];

describe('argument keys', () => {
  it.each(table)('$name', ({ key, args, matches }) => {
    expect(matchArgs(key, args)).toBe(matches);
    expect(compileArgKey(key)(args.map((a) => a.toLowerCase()))).toBe(matches);
  });
});

describe('splitting patterns', () => {
  it('drops empty parts, so a lone slash is the empty list', () => {
    expect(splitPattern('/')).toEqual([]);
    expect(splitPattern('a//b/')).toEqual(['a', 'b']);
  });

  it('lower-cases literals', () => {
    expect(splitPattern('Devices/*/SYNC')).toEqual(['devices', '*', 'sync']);
  });

  it('keeps an all-lower-case list as the same array', () => {
    const list = ['a', 'b'];
    expect(lowerSegments(list)).toBe(list);
    expect(lowerSegments(['A', 'b'])).toEqual(['a', 'b']);
  });
});

describe('the general # matcher agrees with a plain recursive definition', () => {
  const reference = (p: string[], s: string[]): boolean => {
    if (p.length === 0) return s.length === 0;
    const [head, ...rest] = p;
    if (head === '#') {
      for (let i = 0; i <= s.length; i++) if (reference(rest, s.slice(i))) return true;
      return false;
    }
    if (s.length === 0) return false;
    if (head === '*' ? s[0] === '' : head !== s[0]) return false;
    return reference(rest, s.slice(1));
  };
  const alphabet = ['a', 'b', '*', '#'];
  const keys: string[][] = [];
  for (let len = 1; len <= 4; len++) {
    const walk = (prefix: string[]) => {
      if (prefix.length === len) return void keys.push(prefix);
      for (const x of alphabet) walk([...prefix, x]);
    };
    walk([]);
  }
  const lists: string[][] = [[]];
  for (let len = 1; len <= 4; len++) for (const l of lists.filter((x) => x.length === len - 1)) for (const x of ['a', 'b']) lists.push([...l, x]);

  it('on every key of up to four parts over every list of up to four arguments', () => {
    let mismatches = 0;
    for (const k of keys) for (const l of lists) if (compileArgKey(k.join('/'))(l) !== reference(k, l)) mismatches++;
    expect(keys.length * lists.length).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
  });
});
