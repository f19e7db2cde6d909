import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

const root = join(import.meta.dirname, '..', '..');

/** The Node built-ins a `tel …` run loaded, as the process lists them when it exits. */
function builtinsLoadedBy(args: string[]): string[] {
  const tmp = tempDir();
  try {
    const preload = join(tmp.dir, 'list-modules.cjs');
    writeFileSync(preload, "process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));");
    const run = spawnSync(process.execPath, ['-r', preload, join(root, 'bin/tel.js'), ...args], { cwd: tmp.dir, encoding: 'utf8' });
    expect(run.status).toBe(0);
    const line = run.stderr.split('\n').find((l) => l.startsWith('MODULES '));
    return JSON.parse(line!.slice('MODULES '.length)) as string[];
  } finally {
    tmp.cleanup();
  }
}

describe('what an everyday command loads', () => {
  it('tel --help loads no HTTP stack: neither node:http nor an undici (the server and the sender load theirs when they start)', () => {
    const loaded = builtinsLoadedBy(['--help']);
    // the list is real: the CLI's own needs are in it
    expect(loaded).toContain('NativeModule sqlite');
    expect(loaded.filter((m) => /(^|\s|\/)_?http(_\w+)?$|undici/.test(m))).toEqual([]);
  });
});
