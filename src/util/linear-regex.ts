import type { RE2JS } from 're2js';

/**
 * Patterns that tenants write (dial plans, number converters, callflow patterns, resources' rules
 * and classifiers, …) run on RE2's engine (re2js: pure JavaScript, no native code), which matches
 * in time linear in the subject, never backtracking: `^([0-9]+)*$` against a 31-digit number held
 * V8's own engine, and so the server, 3.8 s, doubling with each digit. RE2 refuses what it cannot
 * match that way (back-references, look-around, atomic groups, possessive quantifiers, …): such a
 * pattern is refused when it is written, and one stored before matches nothing.
 */

/** The longest pattern a tenant may write: compiling costs about a microsecond a character. */
export const MAX_PATTERN_CHARS = 1000;

/** A compiled pattern. */
export type LinearPattern = RE2JS;

type Engine = typeof import('re2js');
let engine: Engine | undefined;

/**
 * The engine, loaded when the first pattern is compiled (15–20 ms), so that commands that never
 * see one do not pay for it (a server loads it in the background once it listens). A plain
 * `require`: the bundle holds the package and runs it only then (a static import would run it at
 * every start).
 */
function re2(): Engine {
  return (engine ??= require('re2js') as Engine);
}

/** Loads the engine now. */
export function loadPatternEngine(): void {
  re2();
}

/** Compiled patterns by source, and why those that do not compile do not; they come from a few settings and documents. */
const compiled = new Map<string, LinearPattern | string>();

function compile(source: string): LinearPattern | string {
  let found = compiled.get(source);
  if (found === undefined) {
    if (source.length > MAX_PATTERN_CHARS) found = `longer than ${MAX_PATTERN_CHARS} characters`;
    else {
      try {
        found = re2().RE2JS.compile(source);
      } catch (err) {
        found = err instanceof Error ? err.message : String(err);
      }
    }
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(source, found);
  }
  return found;
}

/** Why RE2 does not take a pattern (its parser's words), or undefined when it does. */
export function patternRefusal(source: string): string | undefined {
  const found = compile(source);
  return typeof found === 'string' ? found : undefined;
}

/**
 * The groups of the first match of `source` in `subject`, as a JavaScript RegExp's `exec` answers
 * them (the whole match first, undefined for a group that took no part), or null: when nothing
 * matches, and when RE2 does not take the pattern.
 */
export function linearExec(source: string, subject: string): (string | undefined)[] | null {
  const pattern = compile(source);
  if (typeof pattern === 'string') return null;
  // the DFA answers whether it matches at all; only a match pays for its groups
  if (!pattern.test(subject)) return null;
  const m = pattern.matcher(subject);
  if (!m.find()) return null;
  const groups: (string | undefined)[] = [];
  for (let i = 0; i <= pattern.groupCount(); i++) groups.push(m.group(i) ?? undefined);
  return groups;
}
