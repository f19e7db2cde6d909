import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { VERSION } from '../version.js';
import { escapeControls } from '../util/text.js';
import { SCHEMA_VERSION } from '../store/db.js';
import { describeError } from '../errors.js';
import { CliError, exitCodeOf, withGlobals, type CliIo } from './io.js';
import { registerInit } from './init.js';
import { registerServe } from './serve.js';
import { registerAccounts } from './accounts.js';
import { registerTokens } from './tokens.js';
import { registerRestrictions } from './restrictions.js';
import { registerConfig } from './config.js';
import { registerSimulate } from './simulate.js';
import { registerLimits } from './limits.js';
import { registerResources } from './resources.js';
import { registerJobs } from './jobs.js';
import { registerWebhooks } from './webhooks.js';
import { registerSink } from './sink.js';
import { registerWatch } from './watch.js';
import { registerApps } from './apps.js';
import { registerLab } from './lab.js';
import { registerBackup } from './backup.js';
import { registerOpenApi } from './openapi.js';
import { registerCompletion } from './completion.js';

/** Command groups, declared explicitly in the order `tel --help` lists them. */
const GROUPS: ((program: Command, io: CliIo) => void)[] = [
  registerInit,
  registerServe,
  registerLab,
  registerBackup,
  registerAccounts,
  registerTokens,
  registerRestrictions,
  registerConfig,
  registerSimulate,
  registerLimits,
  registerResources,
  registerJobs,
  registerWebhooks,
  registerSink,
  registerApps,
  registerWatch,
  registerOpenApi,
  registerCompletion,
];

/** Builds the whole `tel` program writing to `io`. */
export function buildProgram(io: CliIo): Command {
  const program = withGlobals(new Command('tel'))
    .description("A telephony platform's management API (Kazoo-compatible /v2) on one SQLite file.")
    .version(`${VERSION} (database schema ${SCHEMA_VERSION})`, '-V, --version', 'the version, and the database schema it writes')
    .enablePositionalOptions(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, '')),
      writeErr: (s) => io.err(s.replace(/\n$/, '')),
      // One sentence on stderr, the hint included, as every other error.
      outputError: (s, write) => write(`${s.trim().replace(/^error: /, '').replace(/^./, (c) => c.toUpperCase())} (see --help).\n`),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ tel init --account "Lab" --username admin --password secret   create a database
  $ tel serve --port 8000                                          serve the API
  $ tel accounts list --json                                       machine output
  $ tel --db other.db tokens list                                  another database

Global options work before or after the subcommand. Exit codes: 0 ok, 1 refused or failed, 2 usage.`,
    );
  for (const register of GROUPS) register(program, io);
  refuseOptionsAsValues(program);
  return program;
}

/**
 * Makes every option that takes a value refuse an option name as that value: with an empty
 * shell variable, `--account $ID --json` would otherwise read `--json` as the account.
 */
function refuseOptionsAsValues(cmd: Command): void {
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
  for (const sub of cmd.commands) refuseOptionsAsValues(sub);
}

/** Runs `tel` with `args` (without the node and script names); answers the exit code. */
export async function runCli(args: string[], given: CliIo): Promise<number> {
  // Whatever a command prints (names tenants chose among it), a terminal shows control characters
  // rather than obeys them; JSON output stays the same JSON.
  const io: CliIo = { ...given, out: (text) => given.out(escapeControls(text, true)) };
  const program = buildProgram(io);
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.err(describeError(err));
    if (!(err instanceof CliError) && process.env.TEL_DEBUG) io.err(String((err as Error).stack));
    return exitCodeOf(err);
  }
}
