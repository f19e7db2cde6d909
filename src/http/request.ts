import { envelopeData } from '../util/json.js';
import type { RequestContext } from './context.js';
import type { Upload } from '../modules/documents/files.js';
import { errors } from '../errors.js';

/** `data` of the request as an object (`{}` when absent); an array is a 400. */
export function dataObject(ctx: RequestContext): Record<string, unknown> {
  return envelopeData(ctx.data);
}

/** The revision a client expects to replace (`If-Match`), if it sent one. */
export function ifMatchOf(ctx: RequestContext): string | undefined {
  const v = ctx.headers['if-match'];
  return typeof v === 'string' && v !== '*' ? v.replace(/^W\//, '').replace(/"/g, '') : undefined;
}

/** The authenticated caller; handlers behind a token can rely on it. */
export function authOf(ctx: RequestContext) {
  if (!ctx.auth) throw errors.invalidCredentials();
  return ctx.auth;
}

/** A truthy flag from the envelope, `data` or the query string (Kazoo reads all three). */
export function flagOf(ctx: RequestContext, name: string): boolean {
  const d = ctx.data && typeof ctx.data === 'object' && !Array.isArray(ctx.data) ? (ctx.data as Record<string, unknown>)[name] : undefined;
  const v = ctx.envelope[name] ?? d ?? ctx.query.get(name);
  return v === true || v === 'true';
}

/**
 * This server's `/v2/` URL as the client reached it (its `Host`, and `X-Forwarded-Proto` from a
 * proxy in front), for documents that name the API (an app's `api_url`); undefined without a Host.
 */
export function ownApiUrl(ctx: RequestContext): string | undefined {
  const host = ctx.headers.host;
  if (!host || !/^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return undefined;
  const forwarded = ctx.headers['x-forwarded-proto'];
  const proto = typeof forwarded === 'string' && forwarded.trim().toLowerCase() === 'https' ? 'https' : 'http';
  return `${proto}://${host}/v2/`;
}

/** The media type of a Content-Type header, lower case, without parameters (`''` without one). */
export function mediaTypeOf(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * The body of a route that takes files, as a file: any Content-Type but JSON's (and none, and a
 * form's, which are read as the JSON envelope, as Kazoo reads them); undefined for those.
 */
export function uploadOf(contentType: string | undefined, bytes: Buffer): Upload | undefined {
  const type = mediaTypeOf(contentType);
  return readsAsEnvelope(type) ? undefined : { contentType: type, bytes };
}

/** A body read as the JSON envelope: none named, JSON's (`…/json`, `…+json`, `application/x-json`), or a form's. */
export function readsAsEnvelope(mediaType: string): boolean {
  return (
    mediaType === '' ||
    mediaType.endsWith('/json') ||
    mediaType.endsWith('+json') ||
    mediaType === 'application/x-json' ||
    mediaType === 'application/x-www-form-urlencoded'
  );
}

/**
 * The media types a write to a route that takes no file may be sent in: Kazoo's CONTENT_ACCEPTED
 * (crossbar.hrl: JSON, forms, and CSV or octet-stream read as files). Any other is a 415
 * (`api_util:is_known_content_type/2`).
 */
export const ACCEPTED_TYPES: readonly string[] = [
  'application/json',
  'application/x-json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/mixed',
  'application/octet-stream',
  'text/csv',
  'text/comma-separated-values',
];

/** True when a write's body may be of this media type: Kazoo's, and any JSON tel reads (none named is JSON, as Kazoo assumes). */
export function acceptedMediaType(mediaType: string): boolean {
  return readsAsEnvelope(mediaType) || ACCEPTED_TYPES.includes(mediaType);
}
