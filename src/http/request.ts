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

/**
 * The body of a route that takes files, as a file: any Content-Type but JSON's (and none, and a
 * form's, which are read as the JSON envelope, as Kazoo reads them); undefined for those.
 */
export function uploadOf(contentType: string | undefined, bytes: Buffer): Upload | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === '' || type.endsWith('/json') || type.endsWith('+json') || type === 'application/x-json') return undefined;
  if (type === 'application/x-www-form-urlencoded') return undefined;
  return { contentType: type, bytes };
}
