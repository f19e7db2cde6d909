/** A segment pattern compiled once: a test over a list of path segments. */
export type SegmentMatcher = (segments: readonly string[]) => boolean;

/**
 * Splits a key or URI pattern on `/`, dropping empty parts (so `/` is the empty list and a
 * leading or doubled slash changes nothing). Literals are lower-cased: routing ignores letter
 * case, so matching must too, or `SYNC` could slip past a rule written for `sync`.
 */
export function splitPattern(pattern: string): string[] {
  const out: string[] = [];
  for (const part of pattern.split('/')) if (part !== '') out.push(part.toLowerCase());
  return out;
}

/** The segments in lower case; the same array when nothing changes (the common case). */
export function lowerSegments(segments: readonly string[]): readonly string[] {
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] !== segments[i].toLowerCase()) return segments.map((s) => s.toLowerCase());
  }
  return segments;
}

/**
 * Compiles segment patterns where `*` is exactly one non-empty segment, `#` zero or more
 * segments anywhere, anything else itself. Common shapes get a specialised test; the general
 * shape uses the wildcard walk that backtracks to the last `#`.
 */
export function compileSegments(parts: readonly string[]): SegmentMatcher {
  const n = parts.length;
  const hashes = parts.filter((p) => p === '#').length;
  // The shortcuts below answer as the general walk at the end does, faster: a mutant that skips
  // one (or its test) changes no verdict.
  // Stryker disable next-line ConditionalExpression: a shortcut, see above
  if (n === 0) return (s) => s.length === 0;
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut, see above
  if (hashes === 0) {
    // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut, see above
    if (n === 1) {
      const only = parts[0];
      return only === '*' ? (s) => s.length === 1 && s[0] !== '' : (s) => s.length === 1 && s[0] === only;
    }
    return (s) => s.length === n && fixedMatch(parts, s, 0, n);
  }
  // Stryker disable next-line ConditionalExpression: a shortcut, see above
  if (hashes === n) return () => true;
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator,StringLiteral,BlockStatement: a shortcut, see above
  if (hashes === 1 && parts[n - 1] === '#') {
    const head = n - 1;
    return (s) => s.length >= head && fixedMatch(parts, s, 0, head);
  }
  // `#/#` means what `#` means: collapsed, the walk backtracks less
  // Stryker disable next-line MethodExpression,ConditionalExpression,StringLiteral,ArithmeticOperator: the same verdicts, more backtracking
  const collapsed = parts.filter((p, i) => !(p === '#' && parts[i - 1] === '#'));
  return (s) => wildcardMatch(collapsed, s);
}

function fixedMatch(parts: readonly string[], s: readonly string[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const p = parts[i];
    // Stryker disable next-line ConditionalExpression,StringLiteral: segments are never empty (split drops them); kept as a guard
    if (p === '*' ? s[i] === '' : p !== s[i]) return false;
  }
  return true;
}

function wildcardMatch(parts: readonly string[], s: readonly string[]): boolean {
  let pi = 0;
  let si = 0;
  let starP = -1;
  let starS = 0;
  while (si < s.length) {
    const p = parts[pi];
    if (p === '#') {
      starP = pi++;
      starS = si;
      continue;
    }
    // (a directive must come before a statement: one at the end of the block above would mark nothing)
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: past the parts p is undefined and equals no segment; segments are never empty
    if (pi < parts.length && (p === '*' ? s[si] !== '' : p === s[si])) {
      pi++;
      si++;
    } else if (starP >= 0) {
      // let the last `#` swallow one more segment and retry from there
      pi = starP + 1;
      si = ++starS;
    } else {
      return false;
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: past the parts, parts[pi] is undefined, not '#'
  while (pi < parts.length && parts[pi] === '#') pi++;
  return pi === parts.length;
}

/** Compiles one argument key of a rule object (`/`, `*`, `#`, `{id}/quickcall/{id}`, `{id}/#`…). */
export function compileArgKey(key: string): SegmentMatcher {
  return compileSegments(splitPattern(key));
}

const keyCache = new Map<string, SegmentMatcher>();

/** True when the argument key matches the argument list, ignoring letter case (keys are cached). */
export function matchArgs(key: string, args: readonly string[]): boolean {
  let matcher = keyCache.get(key);
  // Stryker disable next-line ConditionalExpression: a cache: compiling again gives the same matcher
  if (!matcher) {
    matcher = compileArgKey(key);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,CallExpression: the cache's bound shows in no verdict
    if (keyCache.size < 10_000) keyCache.set(key, matcher);
  }
  return matcher(lowerSegments(args));
}
