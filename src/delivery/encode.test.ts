import { describe, expect, it } from 'vitest';
import { appendQuery, formEncode } from './encode.js';

describe('form-data bodies, flattened the way Kazoo flattens JSON', () => {
  it('nests objects as parent[child], lists of scalars as k[], spaces as +, leaves nulls out', () => {
    const body = formEncode({ caller_id_name: 'Ann Lee', meta: { team: 'blue sky', tags: ['a', 'b'], gone: null }, answered: true, n: 2 });
    expect(body).toBe('caller_id_name=Ann+Lee&meta[team]=blue+sky&meta[tags][]=a&meta[tags][]=b&answered=true&n=2');
  });

  it('sends objects inside lists as JSON text (where Kazoo would crash)', () => {
    expect(new URLSearchParams(formEncode({ legs: [{ id: 1 }] })).get('legs[]')).toBe('{"id":1}');
  });

  it('appends a query with ? or & as the URL needs', () => {
    expect(appendQuery('http://h/p', 'a=1')).toBe('http://h/p?a=1');
    expect(appendQuery('http://h/p?t=x', 'a=1')).toBe('http://h/p?t=x&a=1');
    expect(appendQuery('http://h/p', '')).toBe('http://h/p');
    expect(appendQuery('http://h/p?', 'a=1')).toBe('http://h/p?a=1');
    expect(appendQuery('http://h/p?t=x&', 'a=1')).toBe('http://h/p?t=x&a=1');
  });

  it('leaves undefined values and empty list items out, and escapes keys as values are', () => {
    expect(formEncode({ gone: undefined, list: [null, 'a b', undefined, 2, false], 'my key': { 'a&b': 'x=y' } })).toBe(
      'list[]=a+b&list[]=2&list[]=false&my+key[a%26b]=x%3Dy',
    );
    expect(formEncode({})).toBe('');
  });
});
