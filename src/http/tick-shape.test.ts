import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = new URL('./tick-shape.ts', import.meta.url).href;

/**
 * A Node process that queues ticks, collects its garbage while none is queued, queues more, then
 * prints what V8 learned about the object literal in `process.nextTick` (one state per property
 * defined through a computed key): `MONOMORPHIC` is one exact map, `MEGAMORPHIC` generic.
 */
function literalFeedback(keep: boolean): string[] {
  const script = `
    import { keepTickShape } from ${JSON.stringify(moduleUrl)};
    if (${keep}) keepTickShape();
    const burst = () => { for (let i = 0; i < 100; i++) process.nextTick(() => {}); };
    burst();
    setImmediate(() => {
      burst();
      setImmediate(() => {
        gc();
        burst();
        setImmediate(() => %DebugPrint(process.nextTick));
      });
    });
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return [...r.stdout.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
}

describe('the kept tick entry', () => {
  it('without it, a collection between ticks turns the entry literal generic (what it prevents)', () => {
    expect(literalFeedback(false)).toContain('MEGAMORPHIC');
  });

  it('with it, the entry literal stays exact across collections', () => {
    const states = literalFeedback(true);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states.every((s) => s === 'MONOMORPHIC')).toBe(true);
  });
});
