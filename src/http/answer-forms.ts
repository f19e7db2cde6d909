import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../errors.js';
import { isObject } from '../util/json.js';

// The forms an answer takes besides the JSON envelope, as a client asks for them: CSV
// (`api_resource:to_csv/2`), JSONP (`api_util:create_resp_content/2`), and what a revision gives
// (`api_resource:generate_etag/2`, cowboy_rest's conditional requests). Each is looked for only
// when a request could carry it, so that a plain request pays a few property reads.

/** A value Kazoo reads from the request (`cb_context:req_value/2`): `data`'s, the query's, then the envelope's. */
function requestValue(name: string, query: URLSearchParams, envelope: Record<string, unknown>, data: unknown): unknown {
  if (isObject(data) && data[name] !== undefined) return data[name];
  const q = query.size === 0 ? null : query.get(name);
  return q ?? envelope[name];
}

/** The media types an answer is provided in (crossbar's CONTENT_PROVIDED), JSON's first: cowboy picks the first a range matches. */
const PROVIDED: readonly { type: string; csv: boolean }[] = [
  { type: 'application/json', csv: false },
  { type: 'application/x-json', csv: false },
  { type: 'application/octet-stream', csv: true },
  { type: 'text/csv', csv: true },
  { type: 'text/comma-separated-values', csv: true },
];

/**
 * True when a GET's answer is to be CSV: `accept=csv` (the request's `accept` value,
 * `api_resource:accept_override/1`), or an `Accept` header whose preferred range a CSV type
 * matches before a JSON one (cowboy's negotiation over CONTENT_PROVIDED).
 */
export function wantsCsv(headers: IncomingHttpHeaders, query: URLSearchParams, envelope: Record<string, unknown>, data: unknown): boolean {
  const override = requestValue('accept', query, envelope, data);
  if (override !== undefined) return override === 'csv';
  const accept = headers.accept;
  if (accept === undefined || !(accept.includes('csv') || accept.includes('octet') || accept.includes('text/*'))) return false;
  return acceptPrefersCsv(accept);
}

/** cowboy's choice: the ranges by quality (the order given among equals), the first one a provided type matches decides. */
function acceptPrefersCsv(accept: string): boolean {
  const ranges = accept
    .split(',')
    .map((part, i) => {
      const [range, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { range: range.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, i };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { range } of ranges) {
    const [type, sub] = range.split('/');
    const hit = PROVIDED.find((p) => {
      const [pt, ps] = p.type.split('/');
      return (type === '*' || type === pt) && (sub === '*' || sub === ps);
    });
    if (hit) return hit.csv;
  }
  return false;
}

/** The name a JSONP answer calls: dotted JavaScript identifiers only (a script is what the client includes). */
const JSONP_CALLBACK = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

/**
 * The request's `jsonp` value: the function a JSONP answer calls (`api_util:create_resp_content/2`);
 * undefined when none. Anything but a dotted JavaScript name of at most 128 characters is a 400
 * (Kazoo writes whatever it is given in front of the answer).
 */
export function jsonpOf(query: URLSearchParams, envelope: Record<string, unknown>, data: unknown): string | undefined {
  const v = requestValue('jsonp', query, envelope, data);
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 128 || !JSONP_CALLBACK.test(v)) {
    throw errors.invalidField('jsonp', 'pattern', 'jsonp must name a JavaScript function (letters, digits, _ and $, dot-separated)', { value: v });
  }
  return v;
}

/** Kazoo's JSONP media type (crossbar_types.hrl's JSONP_CONTENT_TYPE). */
export const JSONP_TYPE = 'application/javascript';

/** The answer's JSON text as a JSONP call: `name(JSON);`. */
export function jsonpText(callback: string, json: string): string {
  return `${callback}(${json});`;
}

/** A revision as an ETag: the strong tag of its text (`generate_etag/2`). */
export function etagOf(revision: string): string {
  return `"${revision}"`;
}

/** The tags of an `If-Match` or `If-None-Match` header (`*` as itself), quotes and `W/` dropped. */
function tagsOf(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
}

/**
 * cowboy_rest's `if_none_match/3` for a GET: true when the header names the answer's revision (a
 * weak comparison) or is `*`: the client's copy is current (304).
 */
export function notModified(headers: IncomingHttpHeaders, revision: string): boolean {
  const h = headers['if-none-match'];
  if (typeof h !== 'string') return false;
  const tags = tagsOf(h);
  return tags.includes('*') || tags.includes(revision);
}
