import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';

const moduleUrl = new URL('./tick-shape.ts', import.meta.url).href;

/** The states of nextTick's literal slots in a `%DebugPrint(process.nextTick)` printout. */
const literalStates = (printout: string) => [...printout.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);

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
  return literalStates(r.stdout);
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

describe('a started server', () => {
  it('keeps the entry literal exact across a collection between two bursts of requests', async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'tick.db');
      expect((await runTel(['--db', db, 'init', '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).code).toBe(0);
      // SIGUSR2: full collections while the loop is idle (no tick queued; four, as V8 keeps the maps
      // it used lately through two); the second time, also what V8 learned, then a stop as on
      // Ctrl-C. V8 prints through C's stdout: into a file, as a pipe (non-blocking in Node) may
      // drop what does not fit at once.
      const preload = join(tmp.dir, 'probe.mjs');
      writeFileSync(preload, `let probes = 0;
process.on('SIGUSR2', () => {
  for (let i = 0; i < 4; i++) gc();
  if (++probes === 1) return process.stderr.write('collected\\n');
  %DebugPrint(process.nextTick);
  process.kill(process.pid, 'SIGINT');
});
`);
      const outFile = join(tmp.dir, 'out.txt');
      const child = spawn(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', preload, TEL_BIN, '--db', db, 'serve', '--host', '127.0.0.1', '--port', '0'], {
        stdio: ['ignore', openSync(outFile, 'w'), 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d) => (err += d));
      const closed = new Promise((resolve) => child.on('close', resolve));
      const out = () => readFileSync(outFile, 'utf8');
      try {
        const until = async (test: () => boolean) => {
          for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 50));
        };
        await until(() => /tel listening on/.test(out()));
        const url = /tel listening on (http:\/\/\S+)/.exec(out())?.[1];
        expect(url, out() + err).toBeTruthy();
        const burst = async () => {
          for (let i = 0; i < 300; i++) await (await fetch(`${url}/v2/token_auth`)).arrayBuffer();
        };
        await burst();
        child.kill('SIGUSR2');
        await until(() => err.includes('collected'));
        await burst();
        child.kill('SIGUSR2');
        await closed;
        const states = literalStates(out());
        expect(states.length, out().slice(-2000)).toBeGreaterThanOrEqual(3);
        expect(states.every((state) => state === 'MONOMORPHIC'), states.join(' ')).toBe(true);
      } finally {
        child.kill('SIGKILL');
      }
    } finally {
      tmp.cleanup();
    }
  }, 30_000);
});
