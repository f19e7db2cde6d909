import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import type { Core } from '../core-type.js';
import { DB_FILE_MODE, refusalOf, schemaAfter, schemaObjects, schemaOf, type SchemaObject } from '../store/db.js';
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

/** A backup copied where nobody else can change it, between its checks and its restore. */
export interface StagedBackup {
  file: string;
  remove(): void;
}

/**
 * Copies a backup (with the write-ahead log beside it, which SQLite reads with it, and its login
 * key) into a private directory: what is checked is exactly what is restored, whoever may write
 * where the backup lies.
 */
export function stageBackup(file: string): StagedBackup {
  const dir = mkdtempSync(join(tmpdir(), 'tel-restore-'));
  const staged = join(dir, 'backup.db');
  try {
    copyFileSync(file, staged);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${staged}-wal`);
    const key = loginKeyFile(file);
    if (key && existsSync(key)) copyFileSync(key, loginKeyFile(staged)!);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { file: staged, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Why a file is not a tel database to restore from, or undefined when it is one: every check a
 * file passes before it replaces the database. A backup is a file from elsewhere: besides being a
 * sound SQLite file of tel's, no newer than this tel, its schema must be exactly what tel's migrations make — a trigger, a
 * view or an index of someone else's would run inside tel (a trigger that puts a revoked token back
 * would make it last for ever).
 */
export function notRestorable(file: string): string | undefined {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (err) {
    return `SQLite cannot open it (${(err as Error).message})`;
  }
  try {
    const schema = schemaOf(db);
    // a newer tel's backup would make the database one this tel refuses to open
    const refused = refusalOf('it', schema.kind === 'empty' ? { kind: 'foreign' } : schema);
    if (refused) return refused;
    const check = db.prepare('PRAGMA integrity_check').get() as { integrity_check: string };
    if (check.integrity_check !== 'ok') return `its integrity check fails (${check.integrity_check})`;
    return schemaDifference(db);
  } catch (err) {
    return `SQLite cannot read it (${(err as Error).message})`;
  } finally {
    db.close();
  }
}

/** How a database's schema differs from what tel's migrations (those it records, in its order) make; undefined when it does not. */
function schemaDifference(db: DatabaseSync): string | undefined {
  const applied = (db.prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as { id: string }[]).map((r) => r.id);
  const expected = schemaAfter(applied);
  if (!expected) return 'it records schema changes this tel does not know (a newer tel made it, or not tel)';
  const key = (o: SchemaObject) => `${o.type} ${o.name}`;
  const wanted = new Map(expected.map((o) => [key(o), o]));
  const found = schemaObjects(db);
  for (const o of found) {
    const w = wanted.get(key(o));
    if (!w) return `its schema has a ${o.type} tel does not make (${o.name})`;
    if (w.tbl_name !== o.tbl_name || w.sql !== o.sql) return `its ${o.type} ${o.name} is not defined as tel defines it`;
  }
  const have = new Set(found.map(key));
  const missing = expected.find((o) => !have.has(key(o)));
  return missing ? `its schema lacks the ${missing.type} ${missing.name}` : undefined;
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
