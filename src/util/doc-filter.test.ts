import { describe, expect, it } from 'vitest';
import { docFilterOf, isFilterKey, onlyTimeBounds } from './doc-filter.js';

// Kazoo's crossbar_filter, case by case: the document and the cases of its own
// crossbar_filter_tests.hrl first, then what crossbar_filter.erl's functions do beyond them.

const CREATED = 63599884144;
const MODIFIED = 63599885144;
const DOC = { foo: 'bar', level1: { level2: { level3: 'value3' } }, pvt_created: CREATED, pvt_modified: MODIFIED };

/** filter_doc_by_querystring/2 of one query string. */
const keeps = (doc: Record<string, unknown>, qs: string) => {
  const f = docFilterOf(new URLSearchParams(qs));
  if (!f) throw new Error(`no filter in ${qs}`);
  return f.test(doc);
};

describe('crossbar_filter_tests.hrl, ported', () => {
  it.each([
    ['filter_foo=bar', true],
    ['filter_foo=baz', false],
    ['filter_level1.level2.level3=value3', true],
    ['filter_level1.level2.level3=value0', false],
    ['filter_not_foo=bar', false],
    ['filter_not_foo=baz', true],
    ['filter_not_level1.level2.level3=value3', false],
    ['filter_not_level1.level2.level3=value0', true],
    ...['foo', 'level1', 'level1.level2', 'level1.level2.level3'].flatMap((k) => [
      [`has_key=${k}`, true],
      [`key_missing=${k}`, false],
    ]),
    ...['not1', 'level1.not2', 'level1.level2.not3'].flatMap((k) => [
      [`has_key=${k}`, false],
      [`key_missing=${k}`, true],
    ]),
    [`created_to=${CREATED - 1}`, false],
    [`created_to=${CREATED}`, true],
    [`created_to=${CREATED + 1}`, true],
    [`created_from=${CREATED - 1}`, true],
    [`created_from=${CREATED}`, true],
    [`created_from=${CREATED + 1}`, false],
    [`modified_to=${MODIFIED - 1}`, false],
    [`modified_to=${MODIFIED}`, true],
    [`modified_from=${MODIFIED}`, true],
    [`modified_from=${MODIFIED + 1}`, false],
    [`filter_foo=bar&created_from=${CREATED - 1}&created_to=${CREATED + 1}`, true],
    [`filter_foo=bar&created_from=${CREATED + 1}&created_to=${CREATED - 1}`, false],
  ] as [string, boolean][])('%s keeps the document: %s', (qs, expected) => {
    expect(keeps(DOC, qs)).toBe(expected);
  });
});

describe('crossbar_filter.erl beyond its tests', () => {
  it('should_filter/2: a JSON list matches any of its strings; a JSON string its text; anything else only as written', () => {
    const doc = { level: 'admin', n: 5, on: true, tags: ['a', 'b'], owner: { id: 'x' } };
    expect(keeps(doc, 'filter_level=["user","admin"]')).toBe(true);
    expect(keeps(doc, 'filter_level=["user"]')).toBe(false);
    expect(keeps(doc, 'filter_level="admin"')).toBe(true);
    // kz_term:to_binary/1 of the stored value is compared: a number or boolean as its text
    expect(keeps(doc, 'filter_n=5')).toBe(true);
    expect(keeps(doc, 'filter_on=true')).toBe(true);
    // members of a list are decoded JSON: the number 5 is not the binary <<"5">>
    expect(keeps(doc, 'filter_n=[5,6]')).toBe(false);
    expect(keeps(doc, 'filter_n=["5"]')).toBe(true);
    // a list of strings is an iolist: joined; an object is its JSON
    expect(keeps(doc, 'filter_tags=ab')).toBe(true);
    expect(keeps(doc, 'filter_owner={"id":"x"}')).toBe(true);
    // a missing key reads as <<>> (get_binary_value/3's default)
    expect(keeps(doc, 'filter_missing=')).toBe(true);
    expect(keeps(doc, 'filter_not_missing=x')).toBe(true);
  });

  it('has_value/2 and value_missing: kz_term:is_empty/1 (0, "", "0", "NULL", "undefined", null, [], {} are empty; false is not)', () => {
    const doc = { zero: 0, empty: '', zs: '0', nul: null, list: [], obj: {}, no: false, yes: 'y', undef: 'undefined', big: 'NULL' };
    for (const k of ['zero', 'empty', 'zs', 'nul', 'list', 'obj', 'undef', 'big', 'absent']) {
      expect(keeps(doc, `has_value=${k}`), k).toBe(false);
      expect(keeps(doc, `value_missing=${k}`), k).toBe(true);
    }
    expect(keeps(doc, 'has_value=no')).toBe(true);
    expect(keeps(doc, 'has_value=yes')).toBe(true);
    // has_key/2: null is a value
    expect(keeps(doc, 'has_key=nul')).toBe(true);
  });

  it('kz_json:get_value/2: a segment into a list is its Nth item, from 1', () => {
    const doc = { numbers: ['+1555', '+1666'], gateways: [{ server: 'a' }, { server: 'b' }] };
    expect(keeps(doc, 'filter_numbers.2=%2B1666')).toBe(true);
    expect(keeps(doc, 'filter_gateways.1.server=a')).toBe(true);
    expect(keeps(doc, 'has_key=gateways.3')).toBe(false);
    expect(keeps(doc, 'has_key=gateways.0')).toBe(false);
  });

  it('should_filter_doc/3: a path through a value that is neither an object nor a list drops the document, negations too', () => {
    const doc = { name: 'x' };
    expect(keeps(doc, 'filter_name.first=x')).toBe(false);
    expect(keeps(doc, 'filter_not_name.first=x')).toBe(false);
    expect(keeps(doc, 'key_missing=name.first')).toBe(false);
    expect(keeps(doc, 'has_key=name.first')).toBe(false);
  });

  it('filter_doc_by_querystring/2: every filter of the query, repeated ones included, combined by AND; other parameters ignored', () => {
    const doc = { a: '1', b: '2' };
    expect(keeps(doc, 'filter_a=1&filter_b=2&page_size=5&_=123')).toBe(true);
    expect(keeps(doc, 'filter_a=1&filter_a=2')).toBe(false);
    expect(docFilterOf(new URLSearchParams('page_size=5&paginate=false&missing_value=a'))).toBeUndefined();
  });

  it('is_filter_key/1: prefixes (filter_, has_key, key_missing, has_value, value_missing) and the four time bounds', () => {
    for (const k of ['filter_x', 'filter_not_x', 'has_key', 'key_missing', 'has_value', 'value_missing', 'created_from', 'modified_to', 'has_keys']) {
      expect(isFilterKey(k), k).toBe(true);
    }
    for (const k of ['missing_value', 'page_size', 'created', 'filters']) expect(isFilterKey(k), k).toBe(false);
    // a key that is a filter key but names no filter (`has_keys`) is ignored by filter_prop/3
    expect(keeps({}, 'has_keys=a&has_key=b')).toBe(false);
    expect(keeps({ b: 1 }, 'has_keys=a&has_key=b')).toBe(true);
  });

  it('lowerbound/2, upperbound/2: a document without the time passes a lower bound only (Erlang orders numbers before atoms)', () => {
    expect(keeps({}, `created_from=${CREATED}`)).toBe(true);
    expect(keeps({}, `created_to=${CREATED}`)).toBe(false);
  });

  it('a time bound that is not a whole number is a 400 (Kazoo keeps no document)', () => {
    expect(() => docFilterOf(new URLSearchParams('created_from=yesterday'))).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('is_only_time_filter/2: time bounds beside parameters that are no filters are only time bounds; any other filter is not', () => {
    const only = (qs: string) => onlyTimeBounds(new URLSearchParams(qs));
    expect(only('created_from=1&created_to=2&page_size=5')).toBe(true);
    expect(only('modified_from=1')).toBe(true);
    expect(only('created_from=1&filter_a=b')).toBe(false);
    expect(only('has_key=a')).toBe(false);
  });
});
