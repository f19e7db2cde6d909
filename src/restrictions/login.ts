import { compileSegments, lowerSegments, splitPattern, type SegmentMatcher } from './args.js';
import type { LoginDecision, LoginRestrictions } from './types.js';

const ANY_METHOD = '*';

interface CompiledPattern {
  pattern: string;
  test: SegmentMatcher;
}

type CompiledLogin = Map<string, readonly CompiledPattern[]>;

function compilePattern(pattern: string): CompiledPattern {
  const parts = splitPattern(pattern);
  // Patterns are written without the version, but a copied `/v2/…` path should mean the same.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: with no parts, parts[0] is undefined and fails the test anyway
  if (parts.length > 0 && /^v[12]$/i.test(parts[0])) parts.shift();
  return { pattern, test: compileSegments(parts) };
}

/** Compiles second-form restrictions: lower-case method (or `*`) → URI patterns. */
export function compileLogin(login: LoginRestrictions): CompiledLogin {
  const out: CompiledLogin = new Map();
  if (login === null || typeof login !== 'object') return out;
  for (const [key, list] of Object.entries(login as Record<string, unknown>)) {
    // Stryker disable next-line ConditionalExpression: `*` lower-cased is `*`
    const name = key === ANY_METHOD ? key : key.toLowerCase();
    if (out.has(name) || !Array.isArray(list)) continue;
    out.set(
      name,
      list.filter((p): p is string => typeof p === 'string').map(compilePattern),
    );
  }
  return out;
}

const cache = new WeakMap<object, CompiledLogin>();

/**
 * Decides a request against restrictions given in a login payload: allowed when a pattern
 * under the request's lower-case method or under `*` matches the path segments after the
 * version (`*` one segment, `#` zero or more). An empty object allows nothing.
 */
export function decideLogin(login: LoginRestrictions, method: string, segments: readonly string[]): LoginDecision {
  let c = cache.get(login);
  // Stryker disable next-line ConditionalExpression: a cache: compiling again gives the same patterns
  if (!c) {
    c = compileLogin(login);
    // Stryker disable next-line CallExpression: a cache, as above
    cache.set(login, c);
  }
  const verb = method.toLowerCase();
  const path = lowerSegments(segments);
  const keys: string[] = [];
  for (const key of verb === ANY_METHOD ? [ANY_METHOD] : [verb, ANY_METHOD]) {
    const patterns = c.get(key);
    if (!patterns) continue;
    keys.push(key);
    for (const p of patterns) {
      if (p.test(path)) return { allowed: true, method, segments, keys, matched: { key, pattern: p.pattern } };
    }
  }
  return { allowed: false, method, segments, keys };
}
