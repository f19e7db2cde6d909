import type { Core } from '../core-type.js';
import type { EnvelopeExtras } from './envelope.js';
import type { RequestContext } from './context.js';
import type { Authorizer } from './authorize.js';
import type { JsonSchema } from '../schema/validate.js';
import type { FilePieces } from '../util/file-pieces.js';

/** What a handler answers; the server wraps it in the envelope. */
export interface Reply {
  status?: number;
  data?: unknown;
  /** `data` already serialised as JSON (it then takes the place of `data`) */
  json?: string;
  extras?: EnvelopeExtras;
  headers?: Record<string, string>;
  /** a file answered as it is instead of the envelope (its Content-Type in `headers`): whole, or in pieces */
  file?: Buffer | FilePieces;
  /** `data` written in pieces as they are read (a listing without paging, a job's detail): see StreamedData */
  stream?: StreamedData;
}

/**
 * The JSON text of a reply's `data` in pieces, each one short to make (a chunk of rows read and
 * serialised): the server writes each as soon as the client has taken the one before
 * (backpressure) and lets other requests run between them, so memory and the time the event loop
 * is held stay bounded whatever the size of the answer. Anything a handler must refuse (a 404, a
 * 400) it refuses before answering a stream: once the first piece is sent, the status is.
 */
export interface StreamedData {
  pieces: Iterable<string>;
  /** envelope keys known once every piece is written */
  extras?: () => EnvelopeExtras;
  /** the data's rows, in chunks, read anew at each call (a listing's: a CSV answer reads them twice) */
  rows?: () => Iterable<unknown[]>;
}

export type Handler = (ctx: RequestContext, core: Core) => Reply | Promise<Reply>;

export type Method = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** A query parameter a route reads, as the OpenAPI document describes it. */
export interface QueryParam {
  name: string;
  description: string;
  schema: JsonSchema;
  /** a family of parameters (`filter_KEY`, …): an object whose members are each a parameter of the query */
  family?: boolean;
}

/** One route: a method and a path template relative to the version prefix. */
export interface RouteDef {
  method: Method;
  /** e.g. `accounts/:account_id/webhooks/:webhook_id`; `:name` captures one segment */
  path: string;
  handler: Handler;
  /** `none`: no token needed (logins, public listings); default `token` */
  auth?: 'none' | 'token';
  /** only a super-duper admin token may call it */
  superduper?: boolean;
  /** takes a file: a body whose Content-Type is not JSON reaches the handler as `ctx.upload` */
  upload?: boolean;
  /**
   * a body over 64 KiB reaches the handler unparsed (`ctx.unparsedBody`), for it to parse off the
   * event loop (bulk number jobs: 100,000 numbers are tens of milliseconds of parsing and checking)
   */
  unparsedLargeBody?: boolean;
  /** the JSON Schema of the request's `data`, as its handler validates it (the OpenAPI document shows it) */
  body?: JsonSchema;
  /** the JSON Schema of the answer's `data` on success (answers.ts); the OpenAPI document shows it */
  response?: JsonSchema;
  /** the query parameters it reads (a listing's paging, ordering, time window), for the OpenAPI document */
  query?: readonly QueryParam[];
  /** the media type of the file it answers in place of the envelope (an image, the OpenAPI document) */
  raw?: string;
  /**
   * statuses it answers beyond those every route may (402 charges, 415 uploads, 429 logins; a
   * second success, such as a collection's 200 when nothing was created), for the OpenAPI document
   */
  errors?: number[];
  /** `allowed-origins`: browsers' CORS for the pages the server's origin policy allows only, never `*` (logins) */
  cors?: 'allowed-origins';
}

interface CompiledRoute extends RouteDef {
  parts: { literal?: string; param?: string }[];
  /** literal count: more literals win over parameters */
  specificity: number;
}

/** Result of looking a path up: the route for this method, or the methods the path allows. */
export interface RouteMatch {
  route?: CompiledRoute;
  params: Record<string, string>;
  allowed: Method[];
  /** every route of the path needs no token (logins, public listings), whatever the method */
  public: boolean;
  /** every route of the path needs a super-duper admin, whatever the method */
  superduper: boolean;
  /** a route of the path answers CORS to allowed origins only (see RouteDef.cors) */
  originsOnly: boolean;
}

/** The API's routes, the endpoint names its paths are parsed with, and the checks before its handlers. */
export class Router {
  private byLength = new Map<number, CompiledRoute[]>();
  private all: RouteDef[] = [];
  /** endpoint names: a path segment equal to one starts a resource */
  readonly endpoints = new Set<string>();
  /** checks of every request that carries a checked token, in order, before its handler */
  readonly authorizers: Authorizer[] = [];

  /** Adds routes (a literal segment names an endpoint only when it is declared in `endpoints`). */
  add(...routes: RouteDef[]): void {
    this.all.push(...routes);
    for (const r of routes) {
      const parts = r.path.split('/').filter(Boolean).map((p) => (p.startsWith(':') ? { param: p.slice(1) } : { literal: p }));
      const compiled: CompiledRoute = { ...r, parts, specificity: parts.filter((p) => p.literal).length };
      const list = this.byLength.get(parts.length) ?? [];
      list.push(compiled);
      list.sort((a, b) => b.specificity - a.specificity);
      this.byLength.set(parts.length, list);
    }
  }

  /** Every route, in the order added (the OpenAPI document is made from them). */
  routes(): readonly RouteDef[] {
    return this.all;
  }

  /** Finds the route for `method` on `segments`, preferring the most literal template. */
  match(method: string, segments: string[]): RouteMatch {
    const candidates = this.byLength.get(segments.length) ?? [];
    const allowed: Method[] = [];
    let best: { route: CompiledRoute; params: Record<string, string> } | undefined;
    let bestSpecificity = -1;
    let isPublic = true;
    let superduper = true;
    let originsOnly = false;
    for (const route of candidates) {
      if (route.specificity < bestSpecificity) break;
      const params = matchParts(route.parts, segments);
      if (!params) continue;
      if (bestSpecificity < 0) bestSpecificity = route.specificity;
      if (!allowed.includes(route.method)) allowed.push(route.method);
      if (route.method === method && !best) best = { route, params };
      isPublic &&= route.auth === 'none';
      superduper &&= route.superduper === true;
      originsOnly ||= route.cors === 'allowed-origins';
    }
    const found = allowed.length > 0;
    return { route: best?.route, params: best?.params ?? {}, allowed, public: found && isPublic, superduper: found && superduper, originsOnly };
  }
}

/** How a write changes a document: `replace` (POST sends it whole) or `merge` (PATCH sends some fields). */
export type WriteMode = 'replace' | 'merge';

/**
 * The POST (replace) and PATCH (merge) routes of one document path, which differ only in the mode;
 * `body` is the document's JSON Schema (see `RouteDef.body`), `response` what they answer.
 */
export function writeRoutes(
  path: string,
  handler: (ctx: RequestContext, core: Core, mode: WriteMode) => Reply | Promise<Reply>,
  body?: JsonSchema,
  response?: JsonSchema,
): RouteDef[] {
  return [
    { method: 'POST', path, body, response, handler: (ctx, core) => handler(ctx, core, 'replace') },
    { method: 'PATCH', path, body, response, handler: (ctx, core) => handler(ctx, core, 'merge') },
  ];
}

/**
 * True when a request goes through the token checks (401, restrictions, account access): every
 * path does but one whose routes need no token, where a wrong method is a plain 405.
 */
export function requiresToken(match: RouteMatch | undefined): boolean {
  if (match?.route) return match.route.auth !== 'none';
  return !match?.public;
}

function matchParts(parts: CompiledRoute['parts'], segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.literal !== undefined) {
      if (p.literal !== segments[i].toLowerCase()) return undefined;
    } else {
      params[p.param!] = segments[i];
    }
  }
  return params;
}

/** A module's HTTP face: the endpoint names it serves, its routes, its checks before handlers. */
export interface ApiModule {
  endpoints?: string[];
  routes?: RouteDef[];
  authorizers?: Authorizer[];
}

/** Builds the router from modules' declarations. */
export function buildRouter(modules: readonly ApiModule[]): Router {
  const router = new Router();
  for (const m of modules) {
    for (const name of m.endpoints ?? []) router.endpoints.add(name);
    router.add(...(m.routes ?? []));
    router.authorizers.push(...(m.authorizers ?? []));
  }
  return router;
}
