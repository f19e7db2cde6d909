import type { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { buildProgram, defineAll } from '../../src/cli/program.js';
import { runTel } from '../helpers/cli.js';

const program = await defineAll(buildProgram({ out: () => {}, err: () => {}, isTTY: false }));

/** Every command below the program, with its path of names (`help` left out). */
function commandsOf(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  return cmd.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [{ path: [...path, c.name()], cmd: c }, ...commandsOf(c, [...path, c.name()])]);
}

const all = commandsOf(program);
const leaves = all.filter((c) => c.cmd.commands.length === 0);

/** Splits an example line as a shell would (quotes, no expansion); stops at a pipe, a redirection or `&&`. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\||>|&&)|(\S+)/g)) {
    if (m[3]) break;
    out.push(m[1] ?? m[2] ?? m[4]);
  }
  return out;
}

/** What is wrong with `tel <args>` against the declared commands and options, or null. */
function problemWith(args: string[]): string | null {
  let cmd: Command = program;
  const positionals: string[] = [];
  const given = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('--')) {
      const name = a.split('=')[0];
      // Options declared anywhere on the path count (the globals are on the program too).
      let opt;
      for (let c: Command | null = cmd; c && !opt; c = c.parent) opt = c.options.find((o) => o.long === name);
      if (!opt) return `${cmd.name()} has no option ${name}`;
      given.add(opt.attributeName());
      if ((opt.required || opt.optional) && !a.includes('=')) i++;
      continue;
    }
    const sub = positionals.length === 0 ? cmd.commands.find((c) => c.name() === a) : undefined;
    if (sub) cmd = sub;
    else positionals.push(a);
  }
  if (cmd.commands.length > 0) return `${cmd.name()} needs a subcommand`;
  for (const o of cmd.options) if (o.mandatory && !given.has(o.attributeName())) return `${cmd.name()} needs ${o.long}`;
  const required = cmd.registeredArguments.filter((r) => r.required).length;
  const variadic = cmd.registeredArguments.some((r) => r.variadic);
  if (positionals.length < required) return `${cmd.name()} needs ${required} argument(s), the example gives ${positionals.length}`;
  if (!variadic && positionals.length > cmd.registeredArguments.length) return `${cmd.name()} takes ${cmd.registeredArguments.length} argument(s), the example gives ${positionals.length}`;
  return null;
}

describe('tel help', () => {
  test('every group and every command teaches by example', async () => {
    const without: string[] = [];
    for (const { path } of all) {
      const r = await runTel([...path, '--help']);
      expect(r.code, path.join(' ')).toBe(0);
      if (!/Examples?:\n\s+\$ tel /.test(r.stdout)) without.push(path.join(' '));
    }
    expect(without).toEqual([]);
  });

  test('every example names real commands and options, with the required ones', async () => {
    // The checker itself: a missing required option, a misspelt option, a missing argument.
    expect(problemWith(words(`accounts create 'Customer A'`))).toMatch(/--parent/);
    expect(problemWith(words('webhooks list --acount <id>'))).toMatch(/no option --acount/);
    expect(problemWith(words('jobs show --json'))).toMatch(/argument/);
    expect(problemWith(words(`--db lab.db accounts create "Customer A" --parent <id> --json`))).toBeNull();
    const wrong: string[] = [];
    for (const path of [[], ...all.map((c) => c.path)]) {
      const r = await runTel([...path, '--help']);
      for (const line of r.stdout.split('\n')) {
        const m = /^\s*\$ tel (.*)$/.exec(line);
        if (!m) continue;
        // A comment after the command is separated by at least two spaces.
        const problem = problemWith(words(m[1].split(/\s{2,}/)[0]));
        if (problem) wrong.push(`${line.trim()}: ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("the contract's command table: every command exists with the documented options", () => {
    const contract = [
      'init --account NAME --username U --password P --realm R',
      'serve --host 127.0.0.1 --port 8000',
      'accounts list',
      'accounts show ID',
      'accounts create NAME --parent ID',
      'accounts delete ID',
      'tokens create --account ID --user ID --restrictions @rules.json',
      'tokens list',
      'tokens revoke TOKEN',
      'restrictions get --account ID',
      'restrictions set --account ID @template.json',
      'restrictions delete --account ID',
      'restrictions test /v2/accounts/ID/devices GET --token T',
      'restrictions test accounts/ID/devices POST --account ID --user ID --auth-method cb_user_auth',
      'webhooks list --account ID',
      'webhooks show HOOK --account ID',
      'webhooks create --account ID',
      'webhooks enable HOOK --account ID',
      'webhooks disable HOOK --account ID',
      'webhooks delete HOOK --account ID',
      'webhooks reenable --account ID --descendants',
      'webhooks attempts --account ID --hook ID',
      'webhooks replay --account ID --hook ID --since T --until T --failed-only',
      'webhooks rotate-secret HOOK_ID --grace 24h',
      'sink --host 127.0.0.1 --port 9000 --status 503 --fail-rate 0.3 --seed 7 --delay 100 --hang --retry-after 5 --rule /crm=503 --rule /slow=delay:2000',
      'resources list',
      'resources show ID --account ID',
      'resources create NAME --account ID',
      'resources delete ID',
      'jobs create --resource ID --numbers -',
      'jobs list',
      'jobs show ID',
      'limits get --account ID',
      'limits set --account ID --accept-charges',
      'config get CATEGORY KEY',
      'config set CATEGORY KEY VALUE',
      'simulate call --account ID',
      'simulate queue-call --account ID --queue Q --agent U',
      'simulate parking --account ID --slot 7',
      'simulate voicemail --account ID --vmbox V',
      'watch --account ID --descendants',
      'apply lab.yaml --dry-run --prune',
      'export --account ID --with-secrets',
      'serve --ephemeral --fixture lab.yaml --port 0',
      'backup copy.db',
      'restore copy.db',
      'reset --yes',
      'openapi',
      'record --upstream http://kazoo.lab:8000 --port 8001 --out traffic.jsonl',
      'diff traffic.jsonl --against http://127.0.0.1:8000 --allow allow.txt',
    ];
    expect(contract.map((line) => [line, problemWith(words(line))]).filter(([, p]) => p)).toEqual([]);
  });

  test('every command takes --db and --json', () => {
    const missing = leaves
      .filter(({ cmd }) => !['--db', '--json'].every((o) => cmd.options.some((x) => x.long === o)))
      .map(({ path }) => path.join(' '));
    expect(missing).toEqual([]);
  });
});
