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
