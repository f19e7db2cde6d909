import { errors } from '../errors.js';
import { unixMsToGregorian } from './time.js';

// Kazoo's query-string filters of listings (`crossbar_filter.erl`), over a document as a listing
// kind shows it whole (see `wholeDoc`). Parsed once a request; tested once a row.

/** A listing's filters: true for the documents every one of them keeps. */
export interface DocFilter {
  test(doc: Record<string, unknown>): boolean;
}

/** The query parameters that are filters (`crossbar_filter:is_filter_key/1`). */
export function isFilterKey(key: string): boolean {
  return (
    key.startsWith('filter_') ||
    key.startsWith('has_key') ||
    key.startsWith('key_missing') ||
    key.startsWith('has_value') ||
    key.startsWith('value_missing') ||
    TIME_BOUNDS[key] !== undefined
  );
}

/**
 * True when a query's only filters are time bounds (`crossbar_filter:is_only_time_filter/2`): a
 * listing of a time range (attempts, jobs) reads them as its range, and applies no filter then.
 */
export function onlyTimeBounds(entries: Iterable<[string, string]>): boolean {
  for (const [key] of entries) if (isFilterKey(key) && TIME_BOUNDS[key] === undefined) return false;
  return true;
}

/** One condition: true, false, or THROWN when the path runs through a value that is neither an object nor a list. */
type Condition = (doc: Record<string, unknown>) => boolean;

/** `created_from` … `modified_to`: the private field each compares, and which way. */
const TIME_BOUNDS: Record<string, { field: 'pvt_created' | 'pvt_modified'; lower: boolean }> = {
  created_from: { field: 'pvt_created', lower: true },
  created_to: { field: 'pvt_created', lower: false },
  modified_from: { field: 'pvt_modified', lower: true },
  modified_to: { field: 'pvt_modified', lower: false },
};

/**
 * The filters among a query's parameters, combined by AND (`filter_doc_by_querystring/2`), or
 * undefined when there are none. A repeated parameter counts each time. A time bound that is not a
 * whole number is a 400 (Kazoo's comparison fails and keeps no document).
 */
export function docFilterOf(entries: Iterable<[string, string]>): DocFilter | undefined {
  const conditions: Condition[] = [];
  for (const [key, value] of entries) {
    const c = conditionOf(key, value);
    if (c) conditions.push(c);
  }
  if (conditions.length === 0) return undefined;
  return {
    test(doc) {
      // a condition that cannot be evaluated drops the document (`should_filter_doc/3`)
      try {
        for (const c of conditions) if (!c(doc)) return false;
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** `filter_prop/3`: the condition a parameter stands for; undefined for one that is no filter. */
function conditionOf(key: string, value: string): Condition | undefined {
  if (key.startsWith('filter_not_')) {
    const equal = equalTo(key.slice('filter_not_'.length), value);
    return (doc) => !equal(doc);
  }
  if (key.startsWith('filter_')) return equalTo(key.slice('filter_'.length), value);
  switch (key) {
    case 'has_key':
      return present(value);
    case 'key_missing': {
      const has = present(value);
      return (doc) => !has(doc);
    }
    case 'has_value':
      return nonEmpty(value);
    case 'value_missing': {
      const has = nonEmpty(value);
      return (doc) => !has(doc);
    }
  }
  const bound = TIME_BOUNDS[key];
  if (!bound) return undefined;
  const at = wholeNumber(key, value);
  return (doc) => {
    const t = doc[bound.field];
    // Erlang orders any number before `undefined`: a document without the field passes a lower bound only
    if (typeof t !== 'number') return bound.lower;
    return bound.lower ? at <= t : at >= t;
  };
}

function wholeNumber(key: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n)) {
    throw errors.invalidField(key, 'type', 'Value did not match type(s): integer', { target: 'integer', value: raw });
  }
  return n;
}

/** No value at a path (Kazoo's `undefined`). */
const MISSING = Symbol('missing');

/** A path thrown through (`kz_json:get_value/2` raising `badarg`): the document is dropped. */
class Unreachable extends Error {}

/**
 * `kz_json:get_value/2` on a dotted key: each segment names a member of an object, or the Nth
 * item (from 1) of a list; a segment past a scalar throws.
 */
function valueAt(doc: unknown, path: readonly string[]): unknown {
  let at: unknown = doc;
  for (const seg of path) {
    if (at === undefined) return MISSING;
    if (Array.isArray(at)) {
      const n = erlangInteger(seg);
      if (n === undefined || n < 1 || n > at.length) return MISSING;
      at = at[n - 1];
    } else if (at !== null && typeof at === 'object') {
      at = Object.hasOwn(at, seg) ? (at as Record<string, unknown>)[seg] : undefined;
    } else throw new Unreachable();
  }
  return at === undefined ? MISSING : at;
}

/** `kz_term:to_integer/1` of a path segment: a whole number, or a decimal one rounded; undefined for anything else. */
function erlangInteger(seg: string): number | undefined {
  if (/^[+-]?\d+$/.test(seg)) return Number(seg);
  if (/^[+-]?\d+\.\d+(?:[eE][+-]?\d+)?$/.test(seg)) return Math.round(Number(seg));
  return undefined;
}

const pathOf = (key: string) => key.split('.');

/**
 * `should_filter/3`: the value at the key, as `kz_term:to_binary/1` writes it (`""` when absent),
 * equals the parameter, or, when the parameter is JSON, the string it is or a string of the list it is.
 */
function equalTo(key: string, expected: string): Condition {
  const path = pathOf(key);
  const accepted = acceptedValues(expected);
  return (doc) => {
    const v = valueAt(doc, path);
    return accepted.has(v === MISSING ? '' : binaryOf(v));
  };
}

/**
 * The values a `filter_KEY` parameter accepts (`should_filter/2`): the text itself and, when it is
 * JSON, the string it is or the strings of the list it is (`filter_state=["in_service","port_in"]`).
 */
export function acceptedValues(expected: string): Set<string> {
  const accepted = new Set([expected]);
  try {
    const decoded: unknown = JSON.parse(expected);
    if (typeof decoded === 'string') accepted.add(decoded);
    else if (Array.isArray(decoded)) for (const v of decoded) if (typeof v === 'string') accepted.add(v);
  } catch {
    // not JSON: the text itself only
  }
  return accepted;
}

/** `kz_term:to_binary/1` of a JSON value, as `kz_json:get_binary_value/3` casts it (a value it cannot cast is `""`). */
function binaryOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return ioListOf(v) ?? '';
  return JSON.stringify(v);
}

/** `iolist_to_binary/1` of a JSON list: its strings (and bytes) joined, nested lists flattened; undefined for anything else. */
function ioListOf(list: unknown[]): string | undefined {
  let text = '';
  for (const item of list) {
    if (typeof item === 'string') text += item;
    else if (typeof item === 'number' && Number.isInteger(item) && item >= 0 && item <= 255) text += String.fromCharCode(item);
    else if (Array.isArray(item)) {
      const inner = ioListOf(item);
      if (inner === undefined) return undefined;
      text += inner;
    } else return undefined;
  }
  return text;
}

/** `has_key/2`: a value (null included) is at the key. */
function present(key: string): Condition {
  const path = pathOf(key);
  return (doc) => valueAt(doc, path) !== MISSING;
}

/** `has_value/2`: a value at the key that `kz_term:is_empty/1` does not call empty. */
function nonEmpty(key: string): Condition {
  const path = pathOf(key);
  return (doc) => !isEmpty(valueAt(doc, path));
}

/** `kz_term:is_empty/1` of a JSON value: absent, null, 0, "", "0", "NULL", "undefined", [] and {} are empty (false is not). */
function isEmpty(v: unknown): boolean {
  if (v === MISSING || v === null || v === 0) return true;
  if (typeof v === 'string') return v === '' || v === '0' || v === 'NULL' || v === 'undefined';
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/** What a document of a listing is besides its fields, as Kazoo stores them beside a document's own. */
export interface DocMeta {
  id: string;
  /** Kazoo's `pvt_type` (`device`, `user`, `webhook`, …) */
  type: string;
  rev?: string;
  accountId?: string;
  /** unix ms */
  created?: number;
  /** unix ms */
  modified?: number;
}

/**
 * A listing's row as its filters see it: the document as a GET of it answers it (`fields`, its
 * `id` added when they lack it) and the private fields Kazoo keeps beside it (`_id`, `_rev`,
 * `pvt_type`, `pvt_account_id`, `pvt_created`, `pvt_modified`, times in Gregorian seconds).
 * Secrets are never in it: what no answer shows is no filter's to probe.
 */
export function wholeDoc(fields: Readonly<Record<string, unknown>>, meta: DocMeta): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...fields, _id: meta.id, pvt_type: meta.type };
  if (doc.id === undefined) doc.id = meta.id;
  if (meta.rev !== undefined) doc._rev = meta.rev;
  if (meta.accountId !== undefined) doc.pvt_account_id = meta.accountId;
  if (meta.created !== undefined) doc.pvt_created = unixMsToGregorian(meta.created);
  if (meta.modified !== undefined) doc.pvt_modified = unixMsToGregorian(meta.modified);
  return doc;
}
