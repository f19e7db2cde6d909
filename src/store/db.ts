import { chmodSync, closeSync, openSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations.js';

export type Db = DatabaseSync;

/** Milliseconds a writer waits for another process holding the lock (CLI beside a server). */
export const BUSY_TIMEOUT_MS = 10_000;

/** The database holds API keys, tokens and signing secrets: only its owner may read it. */
export const DB_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database (write-ahead log, shared memory, rollback journal). */
const COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'];

/** Opens (creating if needed) a tel database, owner-only: WAL, busy timeout, migrations applied. */
export function openDb(file: string): Db {
  const onDisk = file !== '' && file !== ':memory:' && !file.startsWith('file:');
  if (onDisk) ownerOnly(file);
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  db.exec('PRAGMA journal_mode = WAL');
  if (onDisk) for (const suffix of COMPANION_SUFFIXES) ownerOnly(file + suffix, false);
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db);
  return db;
}

/**
 * Makes `file` readable and writable by its owner only, creating it empty first when `create`
 * (SQLite reads an empty file as a new database). Creating it here, rather than letting SQLite,
 * means it never exists with a looser mode whatever the umask; SQLite gives the files it makes
 * beside it the same mode. A looser file made by an older tel is tightened; one we may not
 * change (another owner's) is left as it is.
 */
function ownerOnly(file: string, create = true): void {
  // By path, never by opening the file: closing any descriptor of a file drops the locks
  // SQLite holds on it in this process.
  try {
    chmodSync(file, DB_FILE_MODE);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !create) return;
  }
  try {
    // exclusive: a file nobody had, so no connection of this process holds locks on it
    closeSync(openSync(file, 'wx', DB_FILE_MODE));
    chmodSync(file, DB_FILE_MODE);
  } catch {
    // a missing directory or a file created meanwhile: SQLite opens it or says why it cannot
  }
}

/** Applies the migrations this database has not seen yet, each in its own transaction. */
export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.id)) continue;
    transaction(db, () => {
      // Another process may have applied it while we waited for the lock.
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(migration.id)) return;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)').run(migration.id, Date.now());
    });
  }
}

const statements = new WeakMap<Db, Map<string, StatementSync>>();

/** A prepared statement for `sql`, compiled once per connection (preparing costs more than running). */
export function stmt(db: Db, sql: string): StatementSync {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    s = db.prepare(sql);
    cache.set(sql, s);
  }
  return s;
}

const rollbackHooks = new WeakMap<Db, (() => void)[]>();

/** Runs `fn` whenever a transaction on `db` rolls back (caches drop what they read inside it). */
export function onRollback(db: Db, fn: () => void): void {
  const list = rollbackHooks.get(db) ?? [];
  list.push(fn);
  rollbackHooks.set(db, list);
}

let depth = new WeakMap<Db, number>();

/** Runs `fn` in one IMMEDIATE transaction (nested calls join the outer one). */
export function transaction<T>(db: Db, fn: () => T): T {
  const level = depth.get(db) ?? 0;
  if (level > 0) {
    depth.set(db, level + 1);
    try {
      return fn();
    } finally {
      depth.set(db, level);
    }
  }
  db.exec('BEGIN IMMEDIATE');
  depth.set(db, 1);
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    for (const hook of rollbackHooks.get(db) ?? []) hook();
    throw err;
  } finally {
    depth.set(db, 0);
  }
}

/** For tests that reopen databases: forget nesting state. */
export function resetTransactionState(): void {
  depth = new WeakMap();
}
