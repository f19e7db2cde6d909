import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, spawnTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';
import { installed, telOnPath } from '../../test/helpers/tel-on-path.js';
import { buildProgram, defineAll } from '../cli/program.js';
import { HOOK_IDS } from '../modules/webhooks/hook-types.js';
import { shellQuote } from './model.js';

const program = await defineAll(buildProgram({ out: () => {}, err: () => {}, isTTY: false }));

/** Every command a user can type, by its path of names (hidden ones and `help` left out). */
function visiblePaths(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [{ path: [...path, c.name()], cmd: c }, ...visiblePaths(c, [...path, c.name()])]);
}

let dir: string;
let cleanup: () => void;
let db: string;
let PATH: string;
let customers: string[];
const scripts: Record<string, string> = {};

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('tel-completion-'));
  db = join(dir, 'lab.db');
  PATH = telOnPath(dir);
  expect((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).code).toBe(0);
  const master = JSON.parse((await runTel(['accounts', 'list', '--db', db, '--json'])).stdout)[0].id as string;
  customers = [];
  for (const name of ['Customer A', 'Customer B']) {
    const r = await runTel(['accounts', 'create', name, '--parent', master, '--db', db, '--json']);
    customers.push(JSON.parse(r.stdout).id);
  }
  writeFileSync(join(dir, 'fixture.yaml'), 'version: 1\n');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runTel(['completion', shell]);
    expect(r.code).toBe(0);
    scripts[shell] = join(dir, `tel.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});
afterAll(() => cleanup());

/** Runs `script` in `shell` with tel on PATH, in the temporary directory. */
function run(shell: string, args: string[], script: string): string {
  const r = spawnSync(shell, [...args, '-c', script], { cwd: dir, env: { ...process.env, PATH, TEL_DB: '' }, encoding: 'utf8' });
  expect(r.stderr, `${shell} wrote to stderr`).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/**
 * What bash offers for each command line (the last word being completed), driving the generated
 * `_tel` as bash's programmable completion does: COMP_WORDS, COMP_CWORD, then COMPREPLY.
 */
function bashCompletes(lines: string[][]): string[][] {
  const calls = lines.map((words) => `t ${words.map(shellQuote).join(' ')}`);
  const out = run(
    'bash',
    ['--norc', '--noprofile'],
    [
      `source ${shellQuote(scripts.bash)}`,
      't() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _tel; printf "@@\\n"; printf "%s\\n" "${COMPREPLY[@]}"; }',
      ...calls,
    ].join('\n'),
  );
  return out
    .split('@@\n')
    .slice(1)
    .map((block) => block.split('\n').filter(Boolean));
}

describe('tel completion bash', () => {
  it('registers the completion function for tel', () => {
    expect(run('bash', ['--norc', '--noprofile'], `source ${shellQuote(scripts.bash)}; complete -p tel`)).toBe('complete -F _tel tel\n');
  });

  it('offers every command, then each command its subcommands and every option it takes', () => {
    const all = visiblePaths(program);
    const lines = [['tel', ''], ['tel', 'webhooks', 'cr'], ...all.map(({ path }) => ['tel', ...path, '-'])];
    const [top, create, ...options] = bashCompletes(lines);
    expect(top).toEqual(program.commands.filter((c) => !['help', '__complete'].includes(c.name())).map((c) => c.name()));
    expect(top).toContain('completion');
    expect(create).toEqual(['create']);
    const missing = all.flatMap(({ path, cmd }, i) =>
      cmd.options
        .flatMap((o) => [o.short, o.long])
        .filter((n): n is string => Boolean(n) && !options[i].includes(n!))
        .map((n) => `tel ${path.join(' ')} ${n}`),
    );
    expect(missing).toEqual([]);
    expect(options[all.findIndex(({ path }) => path.join(' ') === 'webhooks create')]).toEqual(expect.arrayContaining(['--hook', '--account', '--db', '--json', '--no-internal-legs']));
  });

  it('offers the values worth offering: hook types, configuration categories and their keys, files, shells', () => {
    const [hooks, channel, joined, categories, keys, aliasKeys, files, port, shells, recording, lab] = bashCompletes([
      ['tel', 'webhooks', 'create', '--hook', ''],
      ['tel', 'webhooks', 'create', '--account', 'x', '--hook', 'channel_b'],
      ['tel', 'webhooks', 'create', '--hook', '=', 'obj'],
      ['tel', 'config', 'set', ''],
      ['tel', 'config', 'set', 'webhooks', 'retry_'],
      ['tel', 'config', 'get', 'crossbar.resources', 'job_recover_t'],
      ['tel', 'apply', 'fix'],
      ['tel', 'serve', '--port', ''],
      ['tel', 'completion', ''],
      ['tel', 'diff', 'fix'],
      ['tel', 'diff', 'x.jsonl', '--lab', 'fix'],
    ]);
    expect(hooks).toEqual([...HOOK_IDS]);
    expect(channel).toEqual(['channel_bridge']);
    expect(joined).toEqual(['object']);
    expect(categories).toEqual(expect.arrayContaining(['webhooks', 'crossbar.auth', 'api.resources', 'crossbar.resources', 'acdc', 'services']));
    expect(keys).toEqual(['retry_base_delay_ms', 'retry_max_delay_ms']);
    expect(aliasKeys).toEqual(['job_recover_threshold_s', 'job_recover_timeout_s']);
    expect(files).toEqual(['fixture.yaml']);
    expect(port).toEqual([]);
    expect(shells).toEqual(['bash', 'zsh', 'fish']);
    expect([recording, lab]).toEqual([['fixture.yaml'], ['fixture.yaml']]);
  });

  it('offers accounts from the database of --db, by name (or by id when one is typed), wherever --db is on the line', () => {
    const [byName, byId, anyCase, notAnOption, dbFirst, dbEquals, argument, none] = bashCompletes([
      ['tel', 'webhooks', 'list', '--db', db, '--account', 'Cust'],
      ['tel', 'webhooks', 'list', '--db', db, '--account', customers[1].slice(0, 6)],
      ['tel', 'tokens', 'create', '--db', db, '--account', 'customer'],
      ['tel', 'tokens', 'create', '--db', db, '--parent', 'customer'],
      ['tel', '--db', db, 'accounts', 'list', '--under', 'lab'],
      ['tel', 'accounts', 'create', 'X', '--db', '=', db, '--parent', ''],
      ['tel', '--db', db, 'accounts', 'show', 'Customer'],
      ['tel', '--db', join(dir, 'missing.db'), 'webhooks', 'list', '--account', ''],
    ]);
    // names as bash inserts them: escaped for the command line (every account option takes a name)
    expect(byName).toEqual(['Customer\\ A', 'Customer\\ B']);
    expect(byId).toEqual([customers[1]]);
    expect(anyCase).toEqual(['Customer\\ A', 'Customer\\ B']);
    expect(notAnOption, '--parent is not an option of tokens create').toEqual([]);
    expect(dbFirst).toEqual(['Lab']);
    expect(dbEquals).toEqual(['Customer\\ A', 'Customer\\ B', 'Lab']);
    expect(argument).toEqual(['Customer\\ A', 'Customer\\ B']);
    expect(none).toEqual([]);
    expect(existsSync(join(dir, 'missing.db')), 'completing must not create a database').toBe(false);
  });

  it('the helper the scripts call is silent on errors, reads the file without changing it, and is hidden', async () => {
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database at all');
    const before = statSync(garbage);
    for (const file of [garbage, join(dir, 'nowhere', 'tel.db')]) {
      const r = await spawnTel(['__complete', 'accounts', 'x', '--db', file]);
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(readFileSync(garbage, 'utf8')).toBe('not a database at all');
    expect(statSync(garbage).mode).toBe(before.mode);
    const listed = await spawnTel(['__complete', 'accounts', 'customer b', '--db', db]);
    expect(listed.stdout).toBe(`Customer B\t${customers[1]}\n`);
    const byId = await spawnTel(['__complete', 'accounts', customers[1].slice(0, 8), '--db', db]);
    expect(byId.stdout).toBe(`${customers[1]}\tCustomer B\n`);
    expect((await runTel(['--help'])).stdout).not.toContain('__complete');
  });
});

describe('tel completion zsh', () => {
  it('is valid zsh that registers _tel with compinit, and its _tel offers commands, options and values', (ctx) => {
    if (!installed('zsh')) ctx.skip('zsh is not installed here (apt-get install zsh): its script was not run');
    run('zsh', ['-f', '-n'], `source ${shellQuote(scripts.zsh)}`);
    expect(run('zsh', ['-f'], `autoload -U compinit; compinit -u -d ${shellQuote(join(dir, 'zcompdump'))}; source ${shellQuote(scripts.zsh)}; print -r -- $_comps[tel]`)).toBe('_tel\n');
    // Outside a completion widget the completion builtins are stand-ins that print what _tel asks of them.
    const stubs = [
      'compdef() { }',
      'compadd() { local -a a; while (( $# )); do case $1 in -d) shift ;; -a) shift; a+=(${(P)1}) ;; --) shift; a+=("$@"); break ;; -*) ;; *) a+=("$1") ;; esac; shift; done; print -r -- "${a[*]}"; }',
      '_describe() { print -r -- "${(P)4[*]}"; }',
      '_files() { print -r -- files; }',
      'compset() { PREFIX=${PREFIX#*=}; }',
      `source ${shellQuote(scripts.zsh)}`,
      't() { words=("$@"); CURRENT=$#; PREFIX=${words[-1]}; _tel; }',
    ];
    const lines = [
      ['tel', 'webhooks', ''],
      ['tel', 'webhooks', 'create', '--hook', ''],
      ['tel', 'webhooks', 'create', '--hook=ob'],
      ['tel', 'webhooks', 'list', `--db=${db}`, '--account', 'Customer B'],
      ['tel', 'config', 'set', 'acdc', ''],
      ['tel', 'backup', ''],
    ];
    const out = run('zsh', ['-f'], [...stubs, ...lines.map((w) => `t ${w.map(shellQuote).join(' ')}`)].join('\n')).split('\n');
    expect(out[0]).toMatch(/^list:an account's webhooks, .* create:create a webhook/);
    expect(out[1]).toBe(HOOK_IDS.join(' '));
    expect(out[2]).toBe(HOOK_IDS.join(' '));
    expect(out[3]).toBe('Customer B');
    expect(out[4]).toBe('notification_retries');
    expect(out[5]).toBe('files');
  });
});

describe('tel completion fish', () => {
  it('is valid fish, and fish completes commands (with descriptions), options and values with it', (ctx) => {
    if (!installed('fish')) ctx.skip('fish is not installed here (apt-get install fish): its script was not run');
    run('fish', ['--no-config', '-n'], `source ${shellQuote(scripts.fish)}`);
    const lines = ['tel webh', 'tel webhooks create --ho', 'tel webhooks create --hook=ob', `tel --db ${db} webhooks list --account `, 'tel config set webhooks ret', 'tel apply fix'];
    const out = run(
      'fish',
      ['--no-config'],
      [`source ${shellQuote(scripts.fish)}`, ...lines.map((l) => `echo @@; complete -C ${shellQuote(l)}`)].join('\n'),
    )
      .split('@@\n')
      .slice(1)
      .map((block) => block.split('\n').filter(Boolean));
    expect(out[0]).toEqual([expect.stringMatching(/^webhooks\tlist, create, update, enable/)]);
    expect(out[1]).toEqual(['--hook\tthe event to send']);
    expect(out[2]).toEqual(['--hook=object']);
    expect(out[3]).toHaveLength(3);
    expect(out[3]).toEqual(expect.arrayContaining([`Customer A\t${customers[0]}`, `Customer B\t${customers[1]}`, expect.stringMatching(/^Lab\t[0-9a-f]{32}$/)]));
    expect(out[4]).toEqual(['retry_base_delay_ms', 'retry_max_delay_ms']);
    expect(out[5]).toEqual(['fixture.yaml']);
  });
});
