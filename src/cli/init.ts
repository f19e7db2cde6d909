import type { Command } from 'commander';
import { initDatabase, isInitialised } from '../modules/accounts/bootstrap.js';
import { CliError, emit, type CliIo } from './io.js';
import { withCore } from './database.js';

/** `tel init`: a new database with its master account and admin user. */
export function defineInit(init: Command, io: CliIo): void {
  init
    .requiredOption('--account <name>', 'name of the master account')
    .requiredOption('--username <u>', 'admin user name')
    .requiredOption('--password <p>', 'admin password')
    .option('--realm <realm>', 'SIP realm of the master account (default: generated)')
    .addHelpText('after', '\nExample:\n  $ tel init --db lab.db --account "Lab" --username admin --password s3cret\n  {"account_id": "…", "user_id": "…", "api_key": "…", "realm": "…"}')
    .action(async (opts: { account: string; username: string; password: string; realm?: string }, cmd: Command) => {
      await withCore(
        cmd,
        (core, g) => {
          if (isInitialised(core)) throw new CliError(`The database ${g.db} is already initialised.`);
          const result = initDatabase(core, opts);
          emit(io, { ...g, json: true }, result);
        },
        { create: true },
      );
    });
}
