import { Argument, Command, CommanderError, InvalidArgumentError, type CommandOptions, type Option } from 'commander';
import { VERSION } from '../version.js';
import { escapeControls } from '../util/text.js';
import { SCHEMA_VERSION } from '../store/schema-version.js';
import { describeError } from '../errors.js';
import { CliError, exitCodeOf, withGlobals, type CliIo } from './io.js';
import { define, defineLater } from './definitions.js';
import { SHELLS } from '../completion/shells.js';

export { defineAll } from './definitions.js';

/** Commander's own checks this file calls (not in its types: they are its error reports). */
interface CommanderReports {
  missingMandatoryOptionValue(option: Option): void;
  unknownOption(flag: string): void;
}
const reports = Command.prototype as unknown as CommanderReports;

/**
 * tel's commands (and their subcommands): an option that is not one of the command's (a typo,
 * `--acount`) is told with its likely spelling, where commander would first report the required
 * option the typo left missing (`--account`), without a word of the typo.
 */
class TelCommand extends Command {
  override createCommand(name?: string): Command {
    return new TelCommand(name);
  }

  missingMandatoryOptionValue(option: Option): void {
    const known = new Set<string>();
    for (let c: Command | null = this; c; c = c.parent) for (const o of c.options) if (o.long) known.add(o.long);
    const typo = this.args.map((a) => a.split('=')[0]).find((a) => a.startsWith('--') && a !== '--' && !known.has(a));
    if (typo) reports.unknownOption.call(this, typo);
    reports.missingMandatoryOptionValue.call(this, option);
  }
}

/** What a command's module exports to define it: its options, subcommands, help text and action. */
type Define = (cmd: Command, io: CliIo) => void;

/**
 * One of tel's commands: what `tel --help` lists of it (name, arguments, description), and the
 * module that defines the rest, loaded only when the command may run. So `tel --help` loads none
 * of them, and a command loads its own (the services, the HTTP stack, the live view) and no other
 * one's: see docs/performance.md, "Starting".
 */
interface TopCommand {
  declare(program: Command): Command;
  load(): Promise<Define>;
}

/** A command that runs: it has the global options (`[options]` in the list). */
function command(usage: string, description: string, load: () => Promise<Define>, opts?: CommandOptions): TopCommand {
  return { declare: (program) => withGlobals(program.command(usage, opts)).description(description), load };
}

/** A group of subcommands. */
function group(name: string, description: string, load: () => Promise<Define>): TopCommand {
  return { declare: (program) => program.command(name).description(description), load };
}

/** tel's commands, in the order `tel --help` lists them. */
const COMMANDS: TopCommand[] = [
  command('init', 'create the master account (super-duper admin) and its admin user in a new database', async () => (await import('./init.js')).defineInit),
  command('serve', 'serve the HTTP API (/v2) on the database; a new database is initialised first', async () => (await import('./serve.js')).defineServe),
  command(
    'apply <file>',
    'make the database match a lab file (YAML or JSON): shows the plan, then applies it in one transaction (a large one in batches)',
    async () => (await import('./lab.js')).defineApply,
  ),
  command('export', 'write the database (or one account and what is below it) as a lab file tel apply reads', async () => (await import('./lab.js')).defineExport),
  command('backup <file>', "copy the database to FILE with SQLite's online backup: consistent while a server writes", async () => (await import('./backup.js')).defineBackup),
  command('restore <file>', 'replace the database with a backup (refused while a server runs on the database)', async () => (await import('./backup.js')).defineRestore),
  command('reset', 'empty the database back to a fresh init, keeping the master account and its admin users', async () => (await import('./backup.js')).defineReset),
  group('accounts', 'list, show, create, update, move and delete accounts (the account tree)', async () => (await import('./accounts.js')).defineAccounts),
  group('tokens', 'issue, list and revoke authentication tokens offline', async () => (await import('./tokens.js')).defineTokens),
  group('restrictions', "token restrictions: an account's template, and a dry run that explains a decision", async () => (await import('./restrictions.js')).defineRestrictions),
  group('config', "read and change system configuration (system_configs categories), or an account's (--account)", async () => (await import('./config.js')).defineConfig),
  group(
    'simulate',
    'fire platform events (calls, messages, parking, queue calls, voicemail, notifications, object changes) as a platform would',
    async () => (await import('./simulate.js')).defineSimulate,
  ),
  group('limits', "read and change an account's trunk and call limits (charges must be accepted)", async () => (await import('./limits.js')).defineLimits),
  group('resources', 'carrier resources: list, show, create, update, delete, import (global, or --account ID)', async () => (await import('./resources.js')).defineResources),
  group('jobs', 'bulk number jobs: create (with a progress bar), list, show, run', async () => (await import('./jobs.js')).defineJobs),
  group(
    'numbers',
    "the simulated carrier's pool of numbers accounts search and buy (add, list, remove), and an account's numbers",
    async () => (await import('./numbers.js')).defineNumbers,
  ),
  group(
    'webhooks',
    'list, create, update, enable, disable and delete webhooks; read the attempt log; re-enable and resend',
    async () => (await import('./webhooks.js')).defineWebhooks,
  ),
  command('sink', 'a webhook receiver for the lab: records every request, checks signatures, answers as told', async () => (await import('./sink.js')).defineSink),
  command(
    'record',
    "a reverse proxy that records a client's exchanges with a Kazoo (or a tel) to a file, secrets redacted",
    async () => (await import('./record.js')).defineRecord,
  ),
  command(
    'diff <recording>',
    'replay a recording against a server and report what it answers differently',
    async () => (await import('./diff.js')).defineDiff,
  ),
  group('apps', "the apps catalogue Kazoo's web UI (Monster UI) lists: list, add and remove apps", async () => (await import('./apps.js')).defineApps),
  command(
    'watch',
    'live view of webhook attempts, number jobs and what tel sink received (a line stream when not on a terminal)',
    async () => (await import('./watch.js')).defineWatch,
  ),
  command(
    'openapi',
    'print the OpenAPI 3.1 document of the HTTP API (also served at GET /v2/openapi.json, no token)',
    async () => (await import('./openapi.js')).defineOpenApi,
  ),
  {
    declare: (program) =>
      withGlobals(program.command('completion'))
        .description('print the shell completion script of tel (commands, options, hook types, configuration keys, account ids)')
        .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS)),
    load: async () => (await import('./completion.js')).defineCompletion,
  },
  command(
    '__complete',
    'values for the completion scripts: accounts by name, or by id when one is typed (the value, a tab, the other; one a line)',
    async () => (await import('./completion.js')).defineComplete,
    { hidden: true },
  ),
];

/**
 * Builds the `tel` program writing to `io`: every command declared, none defined yet (`define`,
 * `defineAll`); `runCli` defines the ones its arguments name.
 */
export function buildProgram(io: CliIo): Command {
  const program = withGlobals(new TelCommand('tel'))
    .description("A telephony platform's management API (Kazoo-compatible /v2) on one SQLite file.")
    .version(`${VERSION} (database schema ${SCHEMA_VERSION})`, '-V, --version', 'the version, and the database schema it writes')
    .enablePositionalOptions(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, '')),
      writeErr: (s) => io.err(s.replace(/\n$/, '')),
      // One sentence on stderr, the hint included, as every other error.
      outputError: (s, write) =>
        write(`${s.trim().replace(/^error: /, '').replace(/\s*\n\(Did you mean (.*)\)$/, ': did you mean $1').replace(/^./, (c) => c.toUpperCase())} (see --help).\n`),
      // rather than commander asking process.stdout, which costs a pipe (see stdio.ts): only a
      // terminal has a width (commander's default: 80) and colours
      getOutHelpWidth: () => (io.isTTY ? process.stdout.columns : 80),
      getOutHasColors: () => io.isTTY && process.stdout.hasColors?.() === true,
    })
    .addHelpText(
      'after',
      `
Examples:
  $ tel init --account "Lab" --username admin --password secret   create a database
  $ tel serve --port 8000                                          serve the API
  $ tel accounts list --json                                       machine output
  $ tel --db other.db tokens list                                  another database

Global options work before or after the subcommand; an account is given by id, name or realm.
Exit codes: 0 ok, 1 refused or failed, 2 usage.`,
    );
  for (const top of COMMANDS) {
    const cmd = top.declare(program);
    defineLater(cmd, () => defineWith(cmd, top, io));
  }
  refuseOptionsAsValues(program, false);
  return program;
}

async function defineWith(cmd: Command, top: TopCommand, io: CliIo): Promise<void> {
  let defineIt: Define;
  try {
    defineIt = await top.load();
  } catch (err) {
    throw new CliError(`tel ${cmd.name()} cannot start: ${describeError(err).replace(/\.?$/, '.')}`);
  }
  defineIt(cmd, io);
  refuseOptionsAsValues(cmd);
}

/**
 * Makes every option that takes a value refuse an option name as that value: with an empty
 * shell variable, `--account $ID --json` would otherwise read `--json` as the account.
 */
function refuseOptionsAsValues(cmd: Command, below = true): void {
  const names = new Set<string>();
  for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) if (o.long) names.add(o.long);
  for (const option of cmd.options) {
    if (!option.required || option.variadic) continue;
    const parse = option.parseArg;
    option.argParser((value: string, previous: unknown) => {
      if (names.has(value.split('=')[0])) throw new InvalidArgumentError(`That is an option: is the value missing (an empty variable)?`);
      return parse ? parse(value, previous) : value;
    });
  }
  if (below) for (const sub of cmd.commands) refuseOptionsAsValues(sub);
}

/** Runs `tel` with `args` (without the node and script names); answers the exit code. */
export async function runCli(args: string[], given: CliIo): Promise<number> {
  // Whatever a command prints (names tenants chose among it), a terminal shows control characters
  // rather than obeys them; JSON output stays the same JSON.
  const io: CliIo = { ...given, out: (text) => given.out(escapeControls(text, true)) };
  const program = buildProgram(io);
  try {
    // the command to run is among the arguments: define those they name (one more costs only time)
    const named = program.commands.filter((c) => args.includes(c.name()));
    await Promise.all(named.map(define));
    if (named.length > 0) io.commandLoaded?.();
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.err(describeError(err));
    if (!(err instanceof CliError) && process.env.TEL_DEBUG) io.err(String((err as Error).stack));
    return exitCodeOf(err);
  }
}
