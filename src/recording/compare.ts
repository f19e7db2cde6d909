import type { RecordedResponse } from './format.js';
import type { Generated } from './mapping.js';

/** One way an answer differs: where (`http.status`, `data.retries`, `data.3.name`, `body`), and both values (absent: undefined). */
export interface Difference {
  field: string;
  recorded?: unknown;
  replayed?: unknown;
}

/** Envelope fields that say which server answered, when, in what version: never compared. */
const SERVER_FIELDS = new Set(['node', 'request_id', 'revision', 'timestamp', 'version']);
/** Fields that name a row of a listing, when its id does not (an object the recorded client did not create). */
const NAME_FIELDS = ['name', 'username', 'key', 'number', 'hook', 'uri', 'email', 'mailbox'];
/** An exchange's differences are listed up to this many (the rest counted). */
export const MAX_DIFFERENCES = 50;

type Kind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'undefined';
const kindOf = (v: unknown): Kind => (v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as Kind));
const isObject = (v: unknown): v is Record<string, unknown> => kindOf(v) === 'object';

/** The media type of a message, without its parameters. */
function mediaType(m: Pick<RecordedResponse, 'headers'>): string {
  const v = m.headers['content-type'];
  return String(Array.isArray(v) ? v[0] : (v ?? ''))
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/** The differences found, counted past MAX_DIFFERENCES. */
class Found {
  differences: Difference[] = [];
  more = 0;
  add(field: string, recorded: unknown, replayed: unknown): void {
    if (this.differences.length < MAX_DIFFERENCES) this.differences.push({ field, recorded, replayed });
    else this.more++;
  }
}

/**
 * Compares a recorded answer with the replayed one, learning generated values as it goes
 * (mapping.ts): the status, the media type, then the body — the envelope's fields but those that
 * name the server and the moment, the shape and values of `data`; text and bytes whole. Listings'
 * rows are matched by id (or by name, then by position), so their order is not compared. With a
 * status that differs, only the envelope's `message` is compared besides.
 */
export function compareAnswers(recorded: RecordedResponse, replayed: RecordedResponse, gen: Generated): { differences: Difference[]; more: number } {
  const found = new Found();
  for (const h of ['etag', 'location']) {
    const r = recorded.headers[h];
    const n = replayed.headers[h];
    if (typeof r === 'string' && typeof n === 'string') gen.same(h, r, n);
  }
  if (recorded.status !== replayed.status) {
    found.add('http.status', recorded.status, replayed.status);
    const rm = isObject(recorded.body) ? recorded.body.message : undefined;
    const nm = isObject(replayed.body) ? replayed.body.message : undefined;
    if (rm !== nm) found.add('message', rm, nm);
    return found;
  }
  if (mediaType(recorded) !== mediaType(replayed)) found.add('http.content-type', mediaType(recorded) || undefined, mediaType(replayed) || undefined);
  if (recorded.body_omitted !== undefined) return found;
  if (recorded.body !== undefined && replayed.body !== undefined) compareJson('', '', recorded.body, replayed.body, gen, found);
  else if (recorded.body_text !== undefined && replayed.body_text !== undefined) {
    if (!gen.same('', recorded.body_text, replayed.body_text)) found.add('body', recorded.body_text, replayed.body_text);
  } else if (recorded.body_base64 !== undefined || replayed.body_base64 !== undefined) {
    if (recorded.body_base64 !== replayed.body_base64) found.add('body', `${recorded.body_bytes} bytes`, `${replayed.body_bytes} bytes`);
  } else if (recorded.body_bytes > 0 || replayed.body_bytes > 0) found.add('body', describe(recorded), describe(replayed));
  return found;
}

/** What a body is, when the two are not of the same form. */
function describe(m: RecordedResponse): string {
  if (m.body !== undefined) return 'JSON';
  if (m.body_text !== undefined) return `text (${m.body_bytes} bytes)`;
  return m.body_bytes === 0 ? 'no body' : `${m.body_bytes} bytes`;
}

function compareJson(path: string, field: string, r: unknown, n: unknown, gen: Generated, found: Found): void {
  const rk = kindOf(r);
  if (rk !== kindOf(n)) return found.add(path, r, n);
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (rk === 'object') {
    const ro = r as Record<string, unknown>;
    const no = n as Record<string, unknown>;
    for (const key of Object.keys(ro)) {
      if (path === '' && SERVER_FIELDS.has(key)) continue;
      if (!Object.hasOwn(no, key)) found.add(at(key), ro[key], undefined);
      else compareJson(at(key), key, ro[key], no[key], gen, found);
    }
    for (const key of Object.keys(no)) {
      if (!Object.hasOwn(ro, key) && !(path === '' && SERVER_FIELDS.has(key))) found.add(at(key), undefined, no[key]);
    }
  } else if (rk === 'array') {
    const ra = r as unknown[];
    const na = n as unknown[];
    const { pairs, extra } = alignRows(ra, na, gen);
    pairs.forEach((j, i) => (j === undefined ? found.add(at(String(i)), ra[i], undefined) : compareJson(at(String(i)), field, ra[i], na[j], gen, found)));
    for (const j of extra) found.add(at(String(j)), undefined, na[j]);
  } else if (!gen.same(field, r, n)) found.add(path, r, n);
}

/** A row's id (or the row, in a list of ids), as the replayed server knows it. */
function ownId(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return isObject(v) && typeof v.id === 'string' ? v.id : undefined;
}

/** A row's first name field and its value. */
function nameOf(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  for (const k of NAME_FIELDS) if (typeof v[k] === 'string' || typeof v[k] === 'number') return `${k}=${v[k]}`;
  return undefined;
}

/**
 * Each recorded row's replayed counterpart (undefined: none), and the replayed rows left over: by
 * id (a recorded id through its counterpart), then by name, then in order.
 */
function alignRows(r: unknown[], n: unknown[], gen: Generated): { pairs: (number | undefined)[]; extra: number[] } {
  const pairs: (number | undefined)[] = new Array(r.length).fill(undefined);
  const taken = new Set<number>();
  const match = (keyOfRecorded: (v: unknown) => string | undefined, keyOfReplayed: (v: unknown) => string | undefined) => {
    const index = new Map<string, number[]>();
    n.forEach((v, j) => {
      const k = taken.has(j) ? undefined : keyOfReplayed(v);
      if (k === undefined) return;
      const js = index.get(k);
      if (js) js.push(j);
      else index.set(k, [j]);
    });
    r.forEach((v, i) => {
      if (pairs[i] !== undefined) return;
      const k = keyOfRecorded(v);
      const j = k === undefined ? undefined : index.get(k)?.shift();
      if (j === undefined) return;
      pairs[i] = j;
      taken.add(j);
    });
  };
  match((v) => {
    const id = ownId(v);
    return id === undefined ? undefined : (gen.get(id) ?? id);
  }, ownId);
  match(nameOf, nameOf);
  let next = 0;
  for (let i = 0; i < r.length; i++) {
    if (pairs[i] !== undefined) continue;
    while (next < n.length && taken.has(next)) next++;
    if (next >= n.length) break;
    pairs[i] = next;
    taken.add(next++);
  }
  return { pairs, extra: n.map((_, j) => j).filter((j) => !taken.has(j)) };
}
