import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

// tel is started four ways — the bin/tel.js shebang (npx tel), the npm scripts, the single
// executable and the project's benchmarks — and each passes Node the V8 flags itself: they must
// be the same flags, or a server behaves (and measures) differently depending on how it started.
const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

/** The quoted strings of the array after `prefix` in a file's text (`execArgv: ['--a', '--b']`). */
function quotedArray(path: string, prefix: string): string[] {
  const text = read(path);
  const at = text.indexOf(prefix);
  expect(at, `${prefix} in ${path}`).toBeGreaterThanOrEqual(0);
  const list = text.slice(at + prefix.length, text.indexOf(']', at));
  return [...list.matchAll(/'([^']+)'/g)].map((x) => x[1]);
}

/** The malloc settings of the shebang, as the npm scripts and the benchmarks give them too. */
const MALLOC = 'MALLOC_MMAP_THRESHOLD_=2621440 MALLOC_TRIM_THRESHOLD_=2621440';

/** The flags of `#!/usr/bin/env -S NAME=value node --a --b`. */
function shebangFlags(): string[] {
  const first = read('bin/tel.js').split('\n')[0];
  const m = new RegExp(`^#!/usr/bin/env -S ${MALLOC} node((?: --[\\w=-]+)*)$`).exec(first);
  expect(m, first).not.toBeNull();
  return m![1].trim().split(' ');
}

describe('the V8 flags tel runs with', () => {
  const flags = shebangFlags();

  test('the shebang carries the young-generation cap and the tiering flags, and no --expose-gc', () => {
    // --expose-gc alone made `tel --help` 40% longer (310 → 436 million instructions, callgrind):
    // a server asks for its collections through the inspector instead (src/http/memory.ts).
    expect(flags).toEqual(['--max-semi-space-size=8', '--no-maglev', '--minimum-invocations-after-ic-update=100']);
  });

  test('the npm scripts that run tel pass the same', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.start).toContain(`${MALLOC} node ${flags.join(' ')} bin/tel.js serve`);
    expect(scripts.tel).toContain(`${MALLOC} node ${flags.join(' ')} bin/tel.js`);
  });

  test('the single executable is built with the same', () => {
    const execArgv = quotedArray('scripts/build.mjs', 'execArgv: [');
    expect(execArgv.filter((a) => !a.startsWith('--disable-warning'))).toEqual(flags);
  });

  test("the project's benchmarks start servers with the same", () => {
    expect(quotedArray('scripts/bench/lib/http.mjs', 'export const TEL_NODE_FLAGS = [')).toEqual(flags);
    const env = /export const TEL_NODE_ENV = (\{[^}]*\})/.exec(read('scripts/bench/lib/http.mjs'))![1];
    expect(Object.entries(JSON.parse(env.replace(/'/g, '"').replace(/(\w+):/g, '"$1":'))).map(([k, v]) => `${k}=${v}`).join(' ')).toBe(MALLOC);
  });
});
