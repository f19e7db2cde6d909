/**
 * Encodes a payload as `application/x-www-form-urlencoded` the way Kazoo flattens JSON:
 * `k=v` pairs joined by `&`, spaces as `+`, nested objects as `parent[child]=v`, arrays of
 * scalars as `k[]=v1&k[]=v2`, booleans as `true`/`false`. Where Kazoo would crash we choose:
 * null/undefined values are left out and objects inside arrays are sent as JSON text.
 */
export function formEncode(payload: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [k, v] of Object.entries(payload)) addPairs(pairs, encodeKey(k), v);
  return pairs.join('&');
}

function addPairs(pairs: string[], key: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item === null || item === undefined) continue;
      const scalar = typeof item === 'object' ? JSON.stringify(item) : item;
      pairs.push(`${key}[]=${encodeValue(scalar)}`);
    }
    return;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) addPairs(pairs, `${key}[${encodeKey(k)}]`, v);
    return;
  }
  pairs.push(`${key}=${encodeValue(value)}`);
}

function encodeKey(key: string): string {
  return encodeURIComponent(key).replace(/%20/g, '+');
}

function encodeValue(value: unknown): string {
  return encodeURIComponent(String(value)).replace(/%20/g, '+');
}

/** Appends a query string to a URL (without a fragment): `?` when it has none yet, `&` when it already has one. */
export function appendQuery(url: string, query: string): string {
  if (query === '') return url;
  const sep = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return `${url}${sep}${query}`;
}
