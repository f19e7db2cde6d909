import type { Core } from '../core-type.js';
import type { EnvelopeExtras } from './envelope.js';
import type { RequestContext } from './context.js';
import { declareEndpoints } from './context.js';

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

/** All routes of the API; modules add theirs with `add`. */
export class Router {
  private byLength = new Map<number, CompiledRoute[]>();

  /** Registers routes; literal segments that are not params become known endpoint names only if declared. */
  add(...routes: RouteDef[]): void {
    for (const r of routes) {
      const parts = r.path.split('/').filter(Boolean).map((p) => (p.startsWith(':') ? { param: p.slice(1) } : { literal: p }));
      const compiled: CompiledRoute = { ...r, parts, specificity: parts.filter((p) => p.literal).length };
      const list = this.byLength.get(parts.length) ?? [];
      list.push(compiled);
      list.sort((a, b) => b.specificity - a.specificity);
      this.byLength.set(parts.length, list);
    }
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

/** A module's HTTP face: the endpoint names it serves and its routes. */
export interface ApiModule {
  endpoints: string[];
  routes: RouteDef[];
}

/** Builds the router from modules, declaring their endpoint names for path parsing. */
export function buildRouter(modules: ApiModule[]): Router {
  const router = new Router();
  for (const m of modules) {
    declareEndpoints(...m.endpoints);
    router.add(...m.routes);
  }
  return router;
}
