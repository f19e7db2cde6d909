import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { closeCore, openCore, type Core } from '../core.js';
import { accountsReferredTo } from '../modules/accounts/service.js';
import { usersWithoutTheirKey } from '../modules/users/service.js';
import { loginKeyFile } from '../modules/users/login-key.js';
import { RefusedFile } from '../store/db.js';
import { STORAGE_CAUSES, storageFaultOf } from '../errors.js';
import { CliError, globalsOf, type CliIo, type Globals } from './io.js';

/** Opens the core for a command, runs `fn`, closes it. Refuses a database that does not exist. */
export async function withCore<T>(cmd: Command, fn: (core: Core, g: Globals) => T | Promise<T>, opts: { create?: boolean } = {}): Promise<T> {
  const g = globalsOf(cmd);
  if (!opts.create && g.db !== ':memory:' && !existsSync(g.db)) {
    throw new CliError(`No database at ${g.db}: create one with \`tel init\` (or \`tel serve\`), or pass --db FILE.`);
  }
  const core = openCoreAt(g.db);
  try {
    return await fn(core, g);
  } finally {
    closeCore(core);
  }
}

/**
 * Opens the core on `file`; a file SQLite cannot open, or one tel refuses (another program's, a
 * newer tel's), is one sentence that names it.
 */
export function openCoreAt(file: string): Core {
  try {
    return openCore(file);
  } catch (err) {
    if (err instanceof RefusedFile) throw new CliError(`${err.message}.`);
    if ((err as { code?: string }).code !== 'ERR_SQLITE_ERROR') throw err;
    // a full disk or a read-only file told as the API tells it; SQLite's words say why a file cannot be opened
    const fault = storageFaultOf(err);
    const why = fault && fault !== 'cannot_open' ? STORAGE_CAUSES[fault] : (err as Error).message;
    throw new CliError(`Cannot open the database ${file}: ${why}.`);
  }
}

/**
 * The id of the account an option names by its id, its name or its realm; refused when there is
 * no such account (exit 1), or when the name means several (exit 2, listing them).
 */
export function existingAccount(core: Core, ref: string, option = '--account'): string {
  const found = accountsReferredTo(core, ref);
  if (found.length === 1) return found[0].id;
  if (found.length === 0) throw new CliError(`No account ${JSON.stringify(ref)} (${option}) in ${core.file}: give an account's id, name or realm (tel accounts list).`);
  const listed = found.map((a) => `${a.id} (${a.name}, realm ${a.realm})`).join(', ');
  throw new CliError(`${JSON.stringify(ref)} (${option}) may mean ${found.length} accounts: ${listed}. Give the id or the realm of one.`, 2);
}

/**
 * Warns when some users' passwords were hashed with a login key the database's key file does not
 * hold (the file left behind by a copy, or another one): their logins fail until it is back.
 */
export function warnUsersWithoutKey(io: CliIo, core: Core): void {
  const n = usersWithoutTheirKey(core);
  if (n === 0) return;
  io.err(
    `Note: ${n} user${n === 1 ? "'s password was" : "s' passwords were"} set with a login key ${loginKeyFile(core.file) ?? 'this database'} does not hold ` +
      '(a database copied without its .key file?): they cannot log in until that key file is put back, or their passwords are set again.',
  );
}
