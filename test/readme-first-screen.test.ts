import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingTools, ROOT, runFirstScreen, runnableExamples } from './helpers/doc-examples.js';
import { tempDir } from './helpers/server.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** README's first block: what a newcomer types first. */
const FIRST = /```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
const SETUP = runnableExamples(README, 'README.md').filter((e) => e.setup);

/** The PATH of the machine's shell: without node_modules/.bin and the project's Node, which `npm test` put first. */
function machinePath(): string {
  const project = dirname(process.execPath);
  return (process.env.PATH ?? '')
    .split(':')
    .filter((d) => d !== '' && d !== project && !d.includes('node_modules'))
    .join(':');
}

/** An environment as a new shell has it: the machine's PATH, none of the npm_* variables `npm test` set. */
function machineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: machinePath() };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') && k !== 'PATH' && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

describe("README's first screen, as a newcomer runs it", () => {
  it('gets a token on the first try: the first block in the order written, then the login of the first steps', async (ctx) => {
    const missing = missingTools(SETUP);
    if (missing.length > 0) ctx.skip(`the first steps call ${missing.join(' and ')}, not installed here: they were not run`);
    // `npm start` is `tel serve` (after bundling, with Node's flags), as the runner starts it
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start).toMatch(/ bin\/tel\.js serve$/);
    const run = await runFirstScreen(FIRST, SETUP);
    expect(run.code, run.output).toBe(0);
    expect(run.token, run.output).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  }, 90_000);

  it("npm install of a fresh clone prints no warning on the machine's own (older) Node", (ctx) => {
    const env = machineEnv();
    const node = spawnSync('node', ['--version'], { env, encoding: 'utf8' });
    if (node.status !== 0) ctx.skip('the machine has no Node of its own on PATH: npm cannot run outside the project');
    if (Number(/^v(\d+)/.exec(node.stdout)?.[1]) >= 24) ctx.skip(`the machine's Node is ${node.stdout.trim()}: npm checks engines against it and has nothing to warn about`);
    if (spawnSync('npm', ['--version'], { env }).status !== 0) ctx.skip('npm is not on the machine\'s PATH');
    const tmp = tempDir('tel-fresh-install-');
    try {
      // A clone's files for npm: package.json, the lockfile and the project's npm settings. A dry
      // run resolves the lockfile's whole tree and checks every package's engines, as a real
      // install does before it downloads (which takes 15 s and the network): that check printed
      // 50 lines of EBADENGINE under Node 20.
      for (const f of ['package.json', 'package-lock.json', '.npmrc']) if (existsSync(join(ROOT, f))) copyFileSync(join(ROOT, f), join(tmp.dir, f));
      const r = spawnSync('npm', ['install', '--dry-run', '--ignore-scripts', '--offline', '--cache', join(tmp.dir, 'cache')], { cwd: tmp.dir, env, encoding: 'utf8' });
      const output = `${r.stdout}${r.stderr}`;
      expect(r.status, output).toBe(0);
      expect(output).toMatch(/^added \d+ packages/m);
      expect(output.split('\n').filter((l) => /^npm (warn|WARN|notice)/.test(l))).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
