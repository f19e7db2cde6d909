import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { backupTo, notRestorable, restoreFrom, stageBackup } from '../backup/backup.js';
import { liveServers } from '../store/presence.js';
import { resetDatabase } from '../backup/reset.js';
import type { Core } from '../core-type.js';
import { CliError, emit, type CliIo } from './io.js';
import { warnUsersWithoutKey, withCore } from './database.js';

/** `tel backup`: a consistent copy of the database file (`tel restore` and `tel reset` also work on the file as a whole). */
export function defineBackup(backup: Command, io: CliIo): void {
  backup
    .option('--force', 'replace FILE when it exists')
    .addHelpText(
      'after',
      `
Examples:
  $ tel backup lab-monday.db                 a consistent copy, also while tel serve runs
  $ tel --db lab.db backup /backups/lab.db --force

The copy is one snapshot of the database (one read transaction: a server's writes go on meanwhile)
and is readable by its owner only, as the database. The login key the users' passwords are hashed
with goes beside it, as FILE.key: keep the two together. \`tel restore FILE\` puts both back.`,
    )
    .action(async (file: string, opts: { force?: boolean }, cmd: Command) =>
      withCore(cmd, async (core, g) => {
        if (existsSync(file) && !opts.force) throw new CliError(`${file} exists: add --force to replace it.`);
        const started = performance.now();
        const pages = await backupTo(core, file);
        const ms = performance.now() - started;
        emit(io, g, { file, pages, elapsed_ms: Math.round(ms) }, () => `Backed up ${core.file} to ${file} (${pages} pages, ${ms.toFixed(0)} ms).`);
      }),
    );
}

/** `tel restore`: the database replaced by a backup. */
export function defineRestore(restore: Command, io: CliIo): void {
  restore
    .addHelpText(
      'after',
      `
Examples:
  $ tel restore lab-monday.db                 ./tel.db becomes the backup again
  $ tel --db lab.db restore /backups/lab.db

Stop tel serve first: a server keeps deliveries, breakers and jobs in memory that a restored file
would not match, so restore refuses (exit 1) while one runs on the database. The backup is checked
before anything changes: a tel database, PRAGMA integrity_check, and a schema (tables, indexes,
triggers, views) exactly as tel's migrations make it, so that a file from elsewhere brings no
trigger or view of its own. Its login key (FILE.key, beside it) replaces the database's; without
it, users whose passwords it hashed cannot log in.`,
    )
    .action(async (file: string, _o: unknown, cmd: Command) => {
      if (!existsSync(file)) throw new CliError(`No backup at ${file}.`);
      const staged = stageBackup(file);
      try {
        const why = notRestorable(staged.file);
        if (why) throw new CliError(`Cannot restore ${file}: ${why}.`);
        await withCore(
          cmd,
          async (core, g) => {
            refuseWhileServing(core, 'restore');
            const pages = await restoreFrom(core, staged.file);
            emit(io, g, { file, pages }, () => `Restored ${core.file} from ${file} (${pages} pages).`);
            warnUsersWithoutKey(io, core);
          },
          { create: true },
        );
      } finally {
        staged.remove();
      }
    });
}

/** `tel reset`: the database emptied back to a fresh init. */
export function defineReset(reset: Command, io: CliIo): void {
  reset
    .option('--yes', 'really empty it (required)')
    .addHelpText(
      'after',
      `
Examples:
  $ tel reset --yes                           ./tel.db as tel init left it, same credentials
  $ tel --db lab.db reset --yes && tel --db lab.db apply examples/lab.yaml   start a lab over

Everything goes but the master account (its id, name, realm and API key) and its admin users (their
passwords too): the credentials of tel init or of the first tel serve keep working. Refused while a
server runs on the database (stop it, or use tel serve --ephemeral for labs that come and go).`,
    )
    .action(async (opts: { yes?: boolean }, cmd: Command) => {
      if (!opts.yes) throw new CliError('tel reset empties the database: add --yes to do it.', 2);
      await withCore(cmd, (core, g) => {
        refuseWhileServing(core, 'reset');
        const kept = resetDatabase(core);
        if (!kept) throw new CliError(`${core.file} has no master account to keep: create one with tel init.`);
        emit(io, g, kept, () => `Reset ${core.file} to a fresh init: kept the master account ${kept.name} (${kept.account_id}) and its admin users ${kept.usernames.join(', ') || '(none)'}.`);
      });
    });
}

function refuseWhileServing(core: Core, what: string): void {
  if (liveServers(core.db) > 0) throw new CliError(`A server runs on ${core.file}: stop it before tel ${what}.`);
}
