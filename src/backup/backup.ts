import { closeSync, openSync, renameSync, rmSync } from 'node:fs';
import { backup, DatabaseSync } from 'node:sqlite';
import type { Core } from '../core-type.js';
import { DB_FILE_MODE } from '../store/db.js';
import { forgetServers } from '../store/presence.js';
import { forgetLoginKey, loginKey, loginKeyFile, readLoginKey, writeLoginKey } from '../modules/users/login-key.js';

/** Pages copied per backup step: all of them in one, so that the copy is one consistent snapshot. */
const ALL_PAGES = 2 ** 31 - 1;

/**
 * Copies the database to `file` with SQLite's online backup: one read transaction over the
 * whole file, so the copy is the database as one commit left it, while a server goes on writing
 * (WAL: its writes do not wait for the copy). Written beside `file` first, then renamed over it,
 * owner-only as the database itself; the login key goes beside it (`FILE.key`): without it, the
 * copy's users could not log in. Answers the pages copied.
 */
export async function backupTo(core: Core, file: string): Promise<number> {
  const partial = `${file}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  // created owner-only before SQLite opens it: the copy holds the same secrets
  closeSync(openSync(partial, 'wx', DB_FILE_MODE));
  try {
    const pages = await backup(core.db, partial, { rate: ALL_PAGES });
    const copy = new DatabaseSync(partial);
    try {
      forgetServers(copy);
    } finally {
      copy.close();
    }
    renameSync(partial, file);
    const key = loginKey(core);
    const keyFile = loginKeyFile(file);
    if (keyFile && key) writeLoginKey(keyFile, key, true);
    else if (keyFile) rmSync(keyFile, { force: true });
    return pages;
  } catch (err) {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
    throw err;
  }
}

/** Why a file is not a tel database to restore from, or undefined when it is one. */
export function notRestorable(file: string): string | undefined {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (err) {
    return `SQLite cannot open it (${(err as Error).message})`;
  }
  try {
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    if (!tables.has('schema_migrations') || !tables.has('accounts')) return 'it is an SQLite database, but not a tel one';
    const check = db.prepare('PRAGMA integrity_check').get() as { integrity_check: string };
    if (check.integrity_check !== 'ok') return `its integrity check fails (${check.integrity_check})`;
    return undefined;
  } catch (err) {
    return `SQLite cannot read it (${(err as Error).message})`;
  } finally {
    db.close();
  }
}

/**
 * Replaces the database's content with a backup's, through SQLite's backup in the other
 * direction: one write transaction, so every process that has the file open sees either the
 * old database or the restored one. A backup whose page size differs is copied after the
 * database leaves WAL mode (SQLite cannot change a WAL database's page size), and it goes back.
 * The backup's login key (`FILE.key`), when it has one, replaces the database's.
 */
export async function restoreFrom(core: Core, file: string): Promise<number> {
  const source = new DatabaseSync(file, { readOnly: true });
  try {
    const pageSize = (db: DatabaseSync) => (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    const resize = pageSize(source) !== pageSize(core.db);
    if (resize) core.db.exec('PRAGMA journal_mode = DELETE');
    try {
      const pages = await backup(source, core.file, { rate: ALL_PAGES });
      const given = loginKeyFile(file);
      const key = given ? readLoginKey(given) : undefined;
      const keyFile = loginKeyFile(core.file);
      if (key && keyFile) writeLoginKey(keyFile, key, true);
      forgetLoginKey(core);
      return pages;
    } finally {
      if (resize) core.db.exec('PRAGMA journal_mode = WAL');
    }
  } finally {
    source.close();
  }
}
