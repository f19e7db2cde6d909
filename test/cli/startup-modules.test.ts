import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

const root = join(import.meta.dirname, '..', '..');

/** Runs `tel …` (its output to pipes) with `preload` before it; answers the run. */
function runWith(preload: string, args: string[]) {
  const tmp = tempDir();
  try {
    const file = join(tmp.dir, 'preload.cjs');
    writeFileSync(file, preload);
    return spawnSync(process.execPath, ['-r', file, join(root, 'bin/tel.js'), ...args], { cwd: tmp.dir, encoding: 'utf8' });
  } finally {
    tmp.cleanup();
  }
}

/** The Node built-ins a `tel …` run loaded, as the process lists them when it exits. */
function builtinsLoadedBy(args: string[]): string[] {
  // listed before anything is written: process.stderr would load the streams itself
  const run = runWith("process.on('exit', () => { const list = JSON.stringify(process.moduleLoadList); require('node:fs').writeSync(2, '\\nMODULES ' + list + '\\n'); });", args);
  expect(run.status).toBe(0);
  const line = run.stderr.split('\n').find((l) => l.startsWith('MODULES '));
  return JSON.parse(line!.slice('MODULES '.length)) as string[];
}

describe('what an everyday command loads', () => {
  it('tel --help through a pipe loads no HTTP stack, no child_process, not even the streams: each command loads its own when it runs', () => {
    const loaded = builtinsLoadedBy(['--help']);
    // the list is real: the CLI's own needs are in it
    expect(loaded).toContain('NativeModule fs');
    // not the store: the schema version `--version` names is a number of its own
    expect(loaded).not.toContain('NativeModule sqlite');
    expect(loaded.filter((m) => /(^|\s|\/)_?http(_\w+)?$|undici/.test(m))).toEqual([]);
    expect(loaded.filter((m) => /^NativeModule (net|stream|child_process|fs\/promises|worker_threads|crypto)$/.test(m))).toEqual([]);
    // ... which a command that opens the database does load
    const opening = builtinsLoadedBy(['tokens', 'list', '--db', ':memory:']);
    expect(opening).toContain('NativeModule crypto');
    expect(opening).toContain('NativeModule sqlite');
  });

  it("tel record's and tel diff's help load neither the proxy, nor undici, nor the recording thread", () => {
    for (const command of ['record', 'diff']) {
      const loaded = builtinsLoadedBy([command, '--help']);
      expect(loaded.filter((m) => /(^|\s|\/)_?http(_\w+)?$|undici|worker_threads|zlib/.test(m)), command).toEqual([]);
    }
  });

  it('a command whose code cannot load says so in one sentence (exit 1); the others still run', () => {
    const withoutCrypto = "const real = process.getBuiltinModule; process.getBuiltinModule = (id) => { if (id === 'node:crypto') throw new Error('node:crypto is missing'); return real(id); };";
    const run = runWith(withoutCrypto, ['tokens', 'list', '--db', ':memory:']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('tel tokens cannot start: node:crypto is missing.\n');
    const help = runWith(withoutCrypto, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tel/);
  });
});
