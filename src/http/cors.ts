import { hostName, isLoopbackHost } from './host-guard.js';

/** Request headers browsers may send (Kazoo's list). */
const ALLOW_HEADERS = [
  'Content-Type', 'Depth', 'User-Agent', 'X-HTTP-Method-Override', 'X-File-Size', 'X-Requested-With',
  'If-Modified-Since', 'X-File-Name', 'Cache-Control', 'X-Auth-Token', 'X-Kazoo-Cluster-ID', 'If-Match',
  'X-Request-ID', 'Authorization',
].join(', ');

const EXPOSE_HEADERS = ['Content-Type', 'X-Auth-Token', 'X-Request-ID', 'X-Kazoo-Cluster-ID', 'Location', 'ETag'].join(', ');

const byMethods = new Map<string, Readonly<Record<string, string>>>();
/** By the list itself: a route's list of methods is one frozen array for all its requests. */
const byList = new WeakMap<readonly string[], Readonly<Record<string, string>>>();

/** The CORS headers tel sends on every response, errors included (built once per method list). */
export function corsHeaders(allowedMethods: readonly string[]): Readonly<Record<string, string>> {
  const known = byList.get(allowedMethods);
  if (known) return known;
  const key = allowedMethods.join(',');
  let headers = byMethods.get(key);
  if (!headers) {
    headers = Object.freeze(buildCors(allowedMethods));
    byMethods.set(key, headers);
  }
  if (Object.isFrozen(allowedMethods)) byList.set(allowedMethods, headers);
  return headers;
}

function buildCors(allowedMethods: readonly string[]): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': ['OPTIONS', ...allowedMethods].join(', '),
    'Access-Control-Allow-Headers': ALLOW_HEADERS,
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
    'Access-Control-Max-Age': '86400',
  };
}

/**
 * Which web pages may call the login routes (`user_auth`, `api_auth`) from a browser: pages of
 * this machine (a loopback origin), pages of a name `tel serve --allowed-host` allowed, and the
 * origins `tel serve --allowed-origin` lists (`*`: any). A page elsewhere cannot send logins
 * through its visitors' browsers (to guess passwords, or to use up the login throttle).
 */
export type OriginPolicy = (origin: string) => boolean;

/** The policy of a server started with these `--allowed-origin` and `--allowed-host` values. */
export function originPolicy(allowedOrigins: readonly string[] = [], allowedHosts: readonly string[] = []): OriginPolicy {
  const origins = new Set(allowedOrigins.map(originOf));
  const hosts = new Set(allowedHosts.map(hostName));
  return (origin) => {
    if (origins.has('*') || origins.has(originOf(origin))) return true;
    const host = hostOfOrigin(origin);
    return host !== undefined && (isLoopbackHost(host) || hosts.has(host));
  };
}

/** An origin as browsers write it (`https://ui.example.com`), or the text itself when it is none. */
function originOf(text: string): string {
  try {
    const u = new URL(text);
    return u.origin === 'null' ? text : u.origin;
  } catch {
    return text;
  }
}

function hostOfOrigin(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname.replace(/^\[|\]$/g, '').toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CORS headers of a login route: the page's own origin when the policy allows it (never `*`),
 * else none, so that a browser neither sends a page's login (the preflight fails) nor shows it the answer.
 */
export function loginCorsHeaders(allowedMethods: readonly string[], origin: string | undefined, policy: OriginPolicy): Record<string, string> {
  if (!origin || !policy(origin)) return { Vary: 'Origin' };
  return { ...corsHeaders(allowedMethods), 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
}
