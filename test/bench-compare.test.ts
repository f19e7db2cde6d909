import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a benchmark's plain JavaScript module, without types
import { parseCompareArgs } from '../scripts/bench/lib/compare-args.mjs';

const run = promisify(execFile);

/** `npm run bench:compare -- …`'s script with these arguments: its exit code and what it printed. */
async function compare(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['scripts/bench/compare.mjs', ...args], { timeout: 20_000 });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('bench:compare reads its arguments before it measures anything', () => {
  it('a REF alone runs every yardstick once, in the yardsticks’ order; --only picks and orders them the same way', () => {
    expect(parseCompareArgs(['main'])).toEqual({ help: false, ref: 'main', only: ['webhooks', 'api', 'jobs', 'startup'], rounds: 1, bench: undefined });
    expect(parseCompareArgs(['07b1655', '--only', 'startup,api', '--rounds', '3', '--bench', 'elsewhere'])).toEqual({
      help: false, ref: '07b1655', only: ['api', 'startup'], rounds: 3, bench: 'elsewhere',
    });
  });

  it.each([
    [[], /name the commit/],
    [['main', 'HEAD~1'], /one REF only/],
    [['main', '--only', 'api,nope'], /--only takes webhooks, api, jobs, startup, not nope/],
    [['main', '--only', ''], /--only takes/],
    [['main', '--rounds', '0'], /--rounds takes a whole number from 1 to 20, not 0/],
    [['main', '--rounds', '2.5'], /not 2.5/],
    [['main', '--fast'], /Unknown option '--fast'/],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseCompareArgs(args)).toThrow(message);
  });

  it('the script says what is wrong and how to call it, exit code 2, and starts nothing', async () => {
    const bad = await compare(['main', '--only', 'api,nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^bench:compare: --only takes .* not nope\nusage: npm run bench:compare -- REF/);
    expect(bad.stdout).toBe('');
    const missing = await compare(['main', '--bench', 'no/such/dir']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no shared yardsticks in .*no\/such\/dir/);
    const help = await compare(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run bench:compare -- REF \[--only webhooks,api,jobs,startup\]/);
  });
});
