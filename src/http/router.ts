import type { Core } from '../core-type.js';
import type { EnvelopeExtras } from './envelope.js';
import type { RequestContext } from './context.js';
import type { Authorizer } from './authorize.js';
import type { JsonSchema } from '../schema/validate.js';

/** What a handler answers; the server wraps it in the envelope. */
export interface Reply {
  status?: number;
  data?: unknown;
  /** `data` already serialised as JSON (it then takes the place of `data`) */
  json?: string;
  extras?: EnvelopeExtras;
  headers?: Record<string, string>;
  /** a file answered as it is instead of the envelope (its Content-Type in `headers`) */
  file?: Buffer;
}

export type Handler = (ctx: RequestContext, core: Core) => Reply | Promise<Reply>;

export type Method = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

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
  /** statuses it answers beyond those every route may (402 charges, 415 uploads, 429 logins), for the OpenAPI document */
  errors?: number[];
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
    for (const route of candidates) {
      if (route.specificity < bestSpecificity) break;
      const params = matchParts(route.parts, segments);
      if (!params) continue;
      if (bestSpecificity < 0) bestSpecificity = route.specificity;
      if (!allowed.includes(route.method)) allowed.push(route.method);
      if (route.method === method && !best) best = { route, params };
      isPublic &&= route.auth === 'none';
      superduper &&= route.superduper === true;
    }
    const found = allowed.length > 0;
    return { route: best?.route, params: best?.params ?? {}, allowed, public: found && isPublic, superduper: found && superduper };
  }
}

/** How a write changes a document: `replace` (POST sends it whole) or `merge` (PATCH sends some fields). */
export type WriteMode = 'replace' | 'merge';

/**
 * The POST (replace) and PATCH (merge) routes of one document path, which differ only in the mode;
 * `body` is the document's JSON Schema (see `RouteDef.body`).
 */
export function writeRoutes(
  path: string,
  handler: (ctx: RequestContext, core: Core, mode: WriteMode) => Reply | Promise<Reply>,
  body?: JsonSchema,
): RouteDef[] {
  return [
    { method: 'POST', path, body, handler: (ctx, core) => handler(ctx, core, 'replace') },
    { method: 'PATCH', path, body, handler: (ctx, core) => handler(ctx, core, 'merge') },
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
