import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.js';
import { isObject } from '../util/json.js';
import { acceptedMediaType, ACCEPTED_TYPES } from './request.js';

// What the verb and headers of a request decide before its handler runs, as Kazoo's api_util and
// cowboy_rest decide it: the verb a POST tunnels, the body's media type, a creation's
// precondition; and the `Location` of what a PUT created.

/** The verbs a POST may stand for. */
const TUNNELLED = new Set(['GET', 'PUT', 'POST', 'PATCH', 'DELETE']);

/**
 * The verb a POST stands for (`api_util:get_http_verb/2`: `verb`, upper-cased), undefined without
 * one. Routes answer GET, PUT, POST, PATCH and DELETE; any other word is `OTHER`, which no route
 * answers (a 405, as Kazoo's allowed methods refuse it), and which keeps the metrics' labels few.
 */
export function tunnelledVerb(verb: unknown): string | undefined {
  if (typeof verb !== 'string' || verb === '') return undefined;
  const upper = verb.toUpperCase();
  return TUNNELLED.has(upper) ? upper : 'OTHER';
}

/** The `verb` a request's envelope names: its `data`'s, else its own (`cb_context:req_value/2` reads `data` first). */
export function verbOf(envelope: Record<string, unknown>): unknown {
  return (isObject(envelope.data) ? envelope.data.verb : undefined) ?? envelope.verb;
}

/**
 * The checks of a write's headers before its handler: a body Kazoo does not read (415,
 * `api_util:is_known_content_type/2`; a route that takes files judges its own), and an `If-Match`
 * on a creation, which has no revision to match (412, cowboy_rest's `if_match_must_not_exist/2`).
 */
export function checkWriteHeaders(req: IncomingMessage, method: string, mediaType: string, takesFiles: boolean): void {
  if (!takesFiles && !acceptedMediaType(mediaType)) throw errors.unsupportedMediaType([...ACCEPTED_TYPES]);
  if (method === 'PUT' && req.headers['if-match'] !== undefined) throw errors.preconditionFailed('a creation has no revision to match');
}

/** Adds `Location` (the created document's id, as Kazoo sets it) to a PUT's 201 answering a document, or documents (the last one's). */
export function locate(headers: Record<string, string>, data: unknown): void {
  const last = Array.isArray(data) ? data[data.length - 1] : data;
  const id = last !== null && typeof last === 'object' ? (last as Record<string, unknown>).id : undefined;
  if (typeof id === 'string' && id !== '') headers.Location = id;
}
