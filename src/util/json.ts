import { errors } from '../errors.js';

/**
 * The deepest nesting of objects and arrays tel accepts in JSON it is sent (a request body,
 * its envelope included, or a CLI option). Real documents stay under ten levels; the limit keeps
 * every recursive walk over input (validation, merges, encoders) far from the stack's end.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The most members — an object's keys and an array's items, at every level, counted together —
 * tel accepts in a request body parsed on the event loop. Each pass over a document (validation,
 * merge, the fields kept private, storage, the answer) costs time in its members: a body of
 * 100,000 keys held the event loop 0.3–1.1 s, one of 10,000 some 35–60 ms. Real documents hold
 * a few hundred; a number job's list, parsed on its thread, is not counted.
 */
export const MAX_JSON_MEMBERS = 10_000;

/**
 * The longest string (its JSON text, in bytes) tel accepts in a request body parsed on the event
 * loop, files excepted (a route that takes uploads). A 5 MB string held the loop 0.1–0.26 s: parsed,
 * its characters counted for a schema's `maxLength`, then echoed in the validation error, as
 * Kazoo's errors carry the value.
 */
export const MAX_JSON_STRING_BYTES = 1024 * 1024;

/** What a request body may hold (see MAX_JSON_MEMBERS, MAX_JSON_STRING_BYTES): Infinity for no limit. */
export interface BodyLimits {
  members: number;
  stringBytes: number;
}

/** The limits of a document's body. */
export const DOCUMENT_BODY_LIMITS: BodyLimits = { members: MAX_JSON_MEMBERS, stringBytes: MAX_JSON_STRING_BYTES };
/** No limit on a body's width or strings (a number job's list, read by its own thread). */
export const UNLIMITED_BODY: BodyLimits = { members: Infinity, stringBytes: Infinity };

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when a JSON text opens more than `max` objects or arrays inside one another. It scans
 * without parsing, so a hostile body is refused after `max` bytes of brackets, before anything
 * is built from it. The bytes of a UTF-8 body can be scanned as they are: the characters that
 * matter are ASCII and never occur inside a multi-byte sequence. Malformed JSON is left for the
 * parser to refuse.
 */
export function jsonTooDeep(text: string | Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  // strings (CLI options, paging keys) are short: scanned as their UTF-8 bytes, by the one scanner
  return bytesTooDeep(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, max);
}

function bytesTooDeep(bytes: Uint8Array, max: number): boolean {
  if (fewOpenings(bytes, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * True when the text holds `max` opening brackets or fewer in all (inside strings too): it then
 * cannot nest deeper than that. Found by the native byte search, so a large body of few objects
 * (a list of 100,000 numbers) is not walked byte by byte; past `max` openings the scan decides.
 */
function fewOpenings(bytes: Uint8Array, max: number): boolean {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  for (let i = buf.indexOf(OPEN_ARRAY); i !== -1; i = buf.indexOf(OPEN_ARRAY, i + 1)) if (++n > max) return false;
  for (let i = buf.indexOf(OPEN_OBJECT); i !== -1; i = buf.indexOf(OPEN_OBJECT, i + 1)) if (++n > max) return false;
  return true;
}

/**
 * True when a JSON text holds more than `max` members (see MAX_JSON_MEMBERS), found without
 * parsing, as jsonTooDeep. A member is counted at each comma outside a string, and once for each
 * object or array that is not empty (its first member follows no comma).
 */
export function jsonTooManyMembers(bytes: Uint8Array, max: number = MAX_JSON_MEMBERS): boolean {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // commas and brackets counted anywhere (inside strings too) by the native byte search: a text
  // with no more of them than `max` cannot hold more members, and a long string is not walked
  if (countUpTo(buf, COMMA, max) + countUpTo(buf, OPEN_ARRAY, max) + countUpTo(buf, OPEN_OBJECT, max) <= max) return false;
  let members = 0;
  let inString = false;
  // an object or array was just opened: the next byte other than white space is its first member, or its end
  let opened = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (opened) {
      opened = false;
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT && ++members > max) return true;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) opened = true;
    else if (c === COMMA && ++members > max) return true;
  }
  return false;
}

/**
 * True when a JSON text holds a string longer than `max` bytes of JSON text (escapes counted as
 * written). Each string's end is found by the native byte search; a text no longer than `max`
 * is not searched. Malformed JSON is left for the parser to refuse.
 */
export function jsonStringTooLong(bytes: Uint8Array, max: number = MAX_JSON_STRING_BYTES): boolean {
  if (bytes.length <= max) return false;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // outside strings a quote always opens one: each search goes from a string's end to the next's start
  for (let start = buf.indexOf(QUOTE); start !== -1; ) {
    let end = buf.indexOf(QUOTE, start + 1);
    while (end !== -1 && escapedAt(buf, end)) end = buf.indexOf(QUOTE, end + 1);
    if (end === -1) return false;
    if (end - start - 1 > max) return true;
    start = buf.indexOf(QUOTE, end + 1);
  }
  return false;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escapedAt(buf: Buffer, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 >= 0 && buf[at - backslashes - 1] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** How many times `byte` occurs in `buf`, counted up to `max + 1` at most. */
function countUpTo(buf: Buffer, byte: number, max: number): number {
  let n = 0;
  for (let i = buf.indexOf(byte); i !== -1 && n <= max; i = buf.indexOf(byte, i + 1)) n++;
  return n;
}

/**
 * A PATCH's merge, as Kazoo's (and RFC 7386's): objects merge recursively, `null` removes a key,
 * anything else (arrays included) replaces. `target` is not changed.
 */
export function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = { ...target };
  // A loop over (copy, patch) pairs, not recursion: how deep a patch nests is the client's choice.
  const pending: [Record<string, unknown>, Record<string, unknown>][] = [[root, patch]];
  while (pending.length > 0) {
    const [out, p] = pending.pop()!;
    for (const [k, v] of Object.entries(p)) {
      if (v === null) delete out[k];
      else if (isObject(v) && isObject(out[k])) {
        const copy = { ...(out[k] as Record<string, unknown>) };
        out[k] = copy;
        pending.push([copy, v]);
      } else out[k] = v;
    }
  }
  return root;
}

/**
 * Layers of settings merged as Kazoo's `kz_json:merge` merges them, the later layers winning:
 * objects merge recursively, `null` removes a key, an empty object replaces what is below it,
 * anything else (arrays included) replaces. No layer is changed.
 */
export function mergeLayers(...layers: Record<string, unknown>[]): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  for (const layer of layers) out = mergeTwo(out, layer);
  return out;
}

// Recursive: the layers are stored settings, nested no deeper than MAX_JSON_DEPTH (bodies are refused past it).
function mergeTwo(lower: Record<string, unknown>, upper: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(lower)) if (v !== null) out[k] = isObject(v) ? mergeTwo({}, v) : v;
  for (const [k, v] of Object.entries(upper)) {
    if (v === null) delete out[k];
    else if (isObject(v) && isObject(out[k]) && Object.keys(v).length > 0) out[k] = mergeTwo(out[k] as Record<string, unknown>, v);
    else out[k] = isObject(v) ? mergeTwo({}, v) : v;
  }
  return out;
}

/**
 * What `values` sets that `base` does not, as Kazoo's `kz_json:diff` finds it: objects compared
 * key by key down to their values (an array, an empty object and any other value are compared
 * whole), and only the differing values kept, at their paths.
 */
export function differenceFrom(values: Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    const under = base[k];
    if (isObject(v) && Object.keys(v).length > 0) {
      const inner = isObject(under) ? differenceFrom(v, under) : v;
      if (Object.keys(inner).length > 0) out[k] = inner;
    } else if (JSON.stringify(v) !== JSON.stringify(under)) out[k] = v;
  }
  return out;
}

/** True for a JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The JSON text of an array whose items come in chunks (a listing read a chunk at a time), one
 * piece a chunk (an empty chunk is an empty piece), each item the JSON of `json(item)`.
 */
export function* jsonArrayPieces<T>(chunks: Iterable<T[]>, json: (item: T) => unknown): Generator<string> {
  let count = 0;
  let text = '[';
  for (const items of chunks) {
    for (const item of items) text += `${count++ === 0 ? '' : ','}${JSON.stringify(json(item))}`;
    yield text;
    text = '';
  }
  yield `${text}]`;
}

/**
 * A request body read as tel's envelope (`{data, …}`): an object whose `data` is an object or an
 * array (Kazoo's envelope schema, `api_util:is_valid_request_envelope/2`: a 400 otherwise); empty
 * is `{}`. Refuses nesting past MAX_JSON_DEPTH, and past `limits` (more members, a longer string),
 * before parsing, and what is not JSON, as the 400s of the error catalogue.
 */
export function parseEnvelope(body: Buffer, limits: BodyLimits = DOCUMENT_BODY_LIMITS): Record<string, unknown> {
  if (jsonTooDeep(body)) throw errors.tooDeep(MAX_JSON_DEPTH);
  if (limits.members !== Infinity && jsonTooManyMembers(body, limits.members)) throw errors.tooManyMembers(limits.members);
  if (limits.stringBytes !== Infinity && jsonStringTooLong(body, limits.stringBytes)) throw errors.tooLongString(limits.stringBytes);
  const text = body.toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson((err as Error).message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.invalidJson('the body must be a JSON object with the payload under "data"');
  }
  const env = parsed as Record<string, unknown>;
  if (env.data === undefined) {
    throw errors.invalidEnvelope({ data: { required: { message: bareDocumentMessage(Object.keys(env)), value: env } } });
  }
  if (env.data === null || typeof env.data !== 'object') {
    throw errors.invalidEnvelope({ data: { type: { message: 'Value did not match type(s): object, array', target: 'object, array', value: env.data } } });
  }
  return env;
}

/** Kazoo's message for the missing `data`, and where the fields that came belong. */
function bareDocumentMessage(topLevel: string[]): string {
  if (topLevel.length === 0) return 'Field is required but missing: the request\'s fields go under "data" ({"data": {…}})';
  const named = `${topLevel.slice(0, 5).join(', ')}${topLevel.length > 5 ? ', …' : ''}`;
  return `Field is required but missing: the request's fields go under "data" ({"data": {…}}), and ${named} came at the top level`;
}

/** An envelope's `data` as a document (absent: `{}`); an array or a scalar is the 400 of a field of the wrong type. */
export function envelopeData(data: unknown): Record<string, unknown> {
  if (data === undefined) return {};
  if (Array.isArray(data) || data === null || typeof data !== 'object') {
    throw errors.invalidField('data', 'type', 'Value did not match type(s): object', { target: 'object' });
  }
  return data as Record<string, unknown>;
}
