import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a build script in JavaScript, without types
import { bundle } from '../scripts/bundle.mjs';

// The single executable starts from the bundle split in chunks (scripts/bundle.mjs, `splitInto`),
// the code every start runs joined in one of them.
describe('the split bundle the single executable starts from', () => {
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tel-split-'));
    await bundle({ force: true, splitInto: join(dir, 'start') });
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the split bundle with the project's Node. */
  function tel(args: string[]) {
    const r = spawnSync(process.execPath, [join(dir, 'start', 'tel.mjs'), ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  test('the start imports one module, and the commands are chunks of their own', () => {
    const start = readFileSync(join(dir, 'start', 'tel.mjs'), 'utf8');
    const imported = [...start.matchAll(/\bimport\s*(?:[\w${},\s*]+from\s*)?"([^"]+)"/g)].map((m) => m[1]);
    expect([...new Set(imported)]).toEqual(['./chunks/start.mjs']);
    expect(readdirSync(join(dir, 'start', 'chunks')).length).toBeGreaterThan(20);
    // no chunk names a path of the machine that built it
    for (const file of readdirSync(join(dir, 'start', 'chunks'))) expect(readFileSync(join(dir, 'start', 'chunks', file), 'utf8')).not.toContain(dir);
  });

  test('a command loaded from its chunk shares the start’s modules: its usage error exits 2', () => {
    expect(tel(['--version']).stdout).toMatch(/^\d+\.\d+\.\d+ \(database schema \d+\)/);
    // serve's module refuses the port with io.ts's CliError, which program.ts (in the start) tells
    // apart from other errors by its class: a second copy of io.ts would make this exit 1
    const r = tel(['serve', '--db', join(dir, 'x.db'), '--port', '99999']);
    expect(r.stderr.trim()).toBe('--port must be 0..65535, not 99999.');
    expect(r.code).toBe(2);
  });

  test('help, the version and a usage error end as soon as written; a command ends with its event loop', () => {
    // an observer of the process: 'beforeExit' comes only when the event loop ran dry
    const observer = `data:text/javascript,process.on('beforeExit', () => process.stderr.write('[loop ran dry]'))`;
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, ['--import', observer, join(dir, 'start', 'tel.mjs'), ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const help = run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tel [\s\S]*Exit codes: 0 ok, 1 refused or failed, 2 usage\.\n$/);
    expect(help.stderr).toBe('');
    expect(run(['--version'])).toMatchObject({ code: 0, stderr: '' });
    const usage = run(['no-such-command']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe("Unknown command 'no-such-command' (see --help).\n");
    // a command's code was loaded: what it wrote may wait in a stream, so the loop runs to its end
    const init = run(['init', '--db', join(dir, 'loop.db'), '--account', 'A', '--username', 'u', '--password', 'p']);
    expect(init.code).toBe(0);
    expect(init.stderr).toBe('[loop ran dry]');
  });

  test('a command runs through the chunks: init, then a listing', () => {
    const db = join(dir, 'lab.db');
    const init = tel(['init', '--db', db, '--account', 'Lab', '--username', 'u', '--password', 'p']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const list = tel(['accounts', 'list', '--db', db, '--json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((a) => a.name)).toEqual(['Lab']);
  });
});
