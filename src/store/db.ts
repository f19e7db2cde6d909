import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations.js';
import { SCHEMA_VERSION } from './schema-version.js';

export type Db = DatabaseSync;

/** Milliseconds a writer waits for another process holding the lock (CLI beside a server). */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * What a serving process waits, blocking its event loop, for a lock another process holds: a CLI
 * command holds it a few milliseconds at a time. Group commits wait longer, without blocking
 * (see group-commit.ts); a request's own write that still meets the lock answers 503.
 */
export const SERVER_BUSY_TIMEOUT_MS = 250;

/** True for SQLite's "the file is locked by another connection" (SQLITE_BUSY, SQLITE_LOCKED). */
export function isBusy(err: unknown): boolean {
  const e = err as { code?: string; errcode?: number };
  return e?.code === 'ERR_SQLITE_ERROR' && (e.errcode === 5 || e.errcode === 6);
}

/**
 * Each connection's busy timeout as setBusyTimeout last set it. A server sets it to 0 and back
 * around every group commit (withoutBusyWait): read back and set through statements compiled
 * each time, that was three statements a commit.
 */
const busyTimeouts = new WeakMap<Db, number>();

/** Sets how long this connection's writers wait for a lock another process holds (the CLI: long; a server: short). */
export function setBusyTimeout(db: Db, ms: number): void {
  const value = Math.max(0, Math.floor(ms));
  stmt(db, `PRAGMA busy_timeout = ${value}`).run();
  busyTimeouts.set(db, value);
}

/**
 * Runs a server's chore (a sweep, a lease's upkeep) only if the write lock is free now: undefined
 * when another connection holds it, for the next round to try again. Waiting is what the event
 * loop must not do for a chore: a number job's thread holds the lock between its batches nearly
 * all the time, and a chore's BEGIN waited the whole busy timeout (250 ms) for it, holding every
 * request that came meanwhile.
 */
export function withoutWaiting<T>(db: Db, chore: () => T): T | undefined {
  try {
    return withoutBusyWait(db, chore);
  } catch (err) {
    if (isBusy(err)) return undefined;
    throw err;
  }
}

/** Runs `fn` with this connection's busy timeout at 0: a lock another connection holds throws busy at once. */
export function withoutBusyWait<T>(db: Db, fn: () => T): T {
  const timeout = busyTimeouts.get(db) ?? (stmt(db, 'PRAGMA busy_timeout').get() as { timeout: number }).timeout;
  if (timeout === 0) return fn();
  setBusyTimeout(db, 0);
  try {
    return fn();
  } finally {
    setBusyTimeout(db, timeout);
  }
}

/** The database holds API keys, tokens and signing secrets: only its owner may read it. */
export const DB_FILE_MODE = 0o600;

/** The page size of a new database file. */
const PAGE_SIZE = 8192;

/** The files SQLite keeps beside a database (write-ahead log, shared memory, rollback journal). */
const COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'];

/**
 * The newest schema this tel understands (schema-version.ts). A file's own number is kept in its
 * `PRAGMA user_version` (set once migrated); a file with a higher one, or with a migration this
 * tel does not know, was written by a newer tel and is refused before any write.
 */
export { SCHEMA_VERSION };
if (SCHEMA_VERSION !== MIGRATIONS.length) {
  throw new Error(`src/store/schema-version.ts says ${SCHEMA_VERSION}, but there are ${MIGRATIONS.length} migrations: make it their number`);
}

/** A file tel will not open as its database: not written by this tel's schema, or not a tel one. */
export class RefusedFile extends Error {}

/** What a database file holds, as far as opening it is concerned. */
export type FileSchema =
  | { kind: 'empty' }
  | { kind: 'foreign' }
  | { kind: 'tel'; version: number; unknown: string[] };

/** Reads what a database holds (reads only): empty, another program's, or tel's at some schema. */
export function schemaOf(db: DatabaseSync): FileSchema {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
  if (tables.size === 0) return { kind: 'empty' };
  if (!tables.has('schema_migrations')) return { kind: 'foreign' };
  const applied = (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id);
  const known = new Set(MIGRATIONS.map((m) => m.id));
  const { user_version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  return { kind: 'tel', version: Math.max(user_version, applied.length), unknown: applied.filter((id) => !known.has(id)) };
}

/** Why this tel must not open a file of that schema as its database, or undefined when it may. */
export function refusalOf(file: string, schema: FileSchema): string | undefined {
  if (schema.kind === 'foreign') return `${file} is an SQLite database, but not a tel one`;
  if (schema.kind === 'tel' && (schema.version > SCHEMA_VERSION || schema.unknown.length > 0)) {
    const which = schema.version > SCHEMA_VERSION ? '' : `; it has migration ${schema.unknown.join(', ')}`;
    return `${file} was written by a newer tel (schema ${schema.version}, this tel knows ${SCHEMA_VERSION}${which})`;
  }
  return undefined;
}

/**
 * Opens (creating if needed) a tel database: WAL, busy timeout, migrations applied. A file that is
 * not one, or one a newer tel wrote, is refused (RefusedFile, or SQLite's own error for a file that
 * is not a database at all) before anything is written to it, its mode included; tel's own file
 * and the files SQLite keeps beside it are made owner-only.
 */
export function openDb(file: string): Db {
  const onDisk = file !== '' && file !== ':memory:' && !file.startsWith('file:');
  const db = onDisk ? openOwnFile(file) : new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // A new file gets 8 KiB pages (an existing one keeps its own): the outbox and attempt rows of a
    // busy server then take fewer log frames, and fewer writes, per commit and checkpoint.
    db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
    db.exec('PRAGMA journal_mode = WAL');
    if (onDisk) for (const suffix of COMPANION_SUFFIXES) ownerOnly(file + suffix);
    setSynchronous(db, 'normal');
    // statement journals and temporary results in memory: they never need to outlive the process
    db.exec('PRAGMA temp_store = MEMORY');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** What a commit survives: `normal` a crash of the process, `full` a loss of power too (see docs/labs.md). */
export type Synchronous = 'normal' | 'full';

/** Sets what this connection's commits survive (SQLite's `synchronous`; WAL keeps either consistent). */
export function setSynchronous(db: Db, level: Synchronous): void {
  db.exec(`PRAGMA synchronous = ${level === 'full' ? 'FULL' : 'NORMAL'}`);
}

/**
 * Opens a database file on disk, checking what an existing one holds before anything is written
 * to it (its mode included): through this connection, which has written nothing yet (its close
 * removes only the log files its reads made) — or, with a write-ahead log or rollback journal
 * beside the file (a server on it, or one that was killed), through a read-only connection first,
 * which can neither fold the log into the file nor roll the journal back.
 */
function openOwnFile(file: string): Db {
  const fresh = createOwnerOnly(file) || !existsSync(file) || statSync(file).size === 0;
  const logBeside = !fresh && (existsSync(`${file}-wal`) || existsSync(`${file}-journal`));
  if (logBeside) {
    const look = new DatabaseSync(file, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
    try {
      refuseUnlessOurs(file, look);
    } finally {
      look.close();
    }
  }
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    if (!fresh && !logBeside) refuseUnlessOurs(file, db);
  } catch (err) {
    db.close();
    throw err;
  }
  ownerOnly(file);
  return db;
}

function refuseUnlessOurs(file: string, db: DatabaseSync): void {
  const why = refusalOf(file, schemaOf(db));
  if (why) throw new RefusedFile(why);
}

/**
 * Creates `file` empty and owner-only when nobody has it (SQLite reads an empty file as a new
 * database); answers whether it did. Creating it here, rather than letting SQLite, means it never
 * exists with a looser mode whatever the umask; SQLite gives the files it makes beside it the same
 * mode.
 */
function createOwnerOnly(file: string): boolean {
  try {
    // exclusive: a file nobody had, so no connection of this process holds locks on it
    closeSync(openSync(file, 'wx', DB_FILE_MODE));
    chmodSync(file, DB_FILE_MODE);
    return true;
  } catch {
    // it exists, or a missing directory: SQLite opens it or says why it cannot
    return false;
  }
}

/**
 * Makes tel's own file readable and writable by its owner only: a looser file made by an older tel
 * is tightened; one we may not change (another owner's) is left as it is. By path, never by
 * opening the file: closing any descriptor of a file drops the locks SQLite holds on it in this
 * process.
 */
function ownerOnly(file: string): void {
  try {
    chmodSync(file, DB_FILE_MODE);
  } catch {
    // gone meanwhile, or not ours to change
  }
}

/**
 * Applies the migrations this database has not seen yet, each in its own transaction: all of
 * them (the file then records this tel's schema version), or those of `only`, in that order.
 */
export function migrate(db: Db, only?: readonly string[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id),
  );
  const byId = new Map(MIGRATIONS.map((m) => [m.id, m]));
  for (const migration of only ? only.map((id) => byId.get(id)!) : MIGRATIONS) {
    if (applied.has(migration.id)) continue;
    transaction(db, () => {
      // Another process may have applied it while we waited for the lock.
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(migration.id)) return;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)').run(migration.id, Date.now());
    });
  }
  if (only) return;
  // the file says which schema it has, so that an older tel refuses it (written once per upgrade)
  const { user_version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (user_version < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
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

/** Runs `fn` whenever a transaction on `db` (or a savepoint in it) rolls back: caches drop what they read inside it. */
export function onRollback(db: Db, fn: () => void): void {
  const list = rollbackHooks.get(db) ?? [];
  list.push(fn);
  rollbackHooks.set(db, list);
}

/** What to do once the work that registered it is known to be kept or undone. */
export interface SettleHook {
  /** after the transaction committed */
  commit?: () => void;
  /** after the transaction, or the savepoint the hook was registered in, rolled back */
  rollback?: () => void;
}

interface TxState {
  depth: number;
  hooks: SettleHook[];
}

const txStates = new WeakMap<Db, TxState>();

function txState(db: Db): TxState {
  let state = txStates.get(db);
  if (!state) txStates.set(db, (state = { depth: 0, hooks: [] }));
  return state;
}

/**
 * Registers work that must wait for the surrounding transaction's outcome (hand a committed row to
 * the sender, give back a reservation); outside a transaction the write is already committed.
 */
export function onSettle(db: Db, hook: SettleHook): void {
  const state = txState(db);
  if (state.depth > 0) state.hooks.push(hook);
  else hook.commit?.();
}

function rolledBack(db: Db, hooks: SettleHook[]): void {
  for (let i = hooks.length - 1; i >= 0; i--) hooks[i].rollback?.();
  for (const hook of rollbackHooks.get(db) ?? []) hook();
}

const commits = new WeakMap<Db, number>();

/** How many transactions this connection has committed (the checkpointer's sign of new pages in the log). */
export function commitCount(db: Db): number {
  return commits.get(db) ?? 0;
}

/** Runs `fn` in one IMMEDIATE transaction (nested calls join the outer one). */
export function transaction<T>(db: Db, fn: () => T): T {
  const state = txState(db);
  if (state.depth > 0) {
    state.depth++;
    try {
      return fn();
    } finally {
      state.depth--;
    }
  }
  db.exec('BEGIN IMMEDIATE');
  state.depth = 1;
  let result: T;
  try {
    result = fn();
    db.exec('COMMIT');
    commits.set(db, (commits.get(db) ?? 0) + 1);
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    state.depth = 0;
    rolledBack(db, state.hooks.splice(0));
    throw err;
  }
  state.depth = 0;
  for (const hook of state.hooks.splice(0)) {
    try {
      hook.commit?.();
    } catch (err) {
      // committed is committed: a hook that fails must not make the caller think otherwise
      process.stderr.write(`tel: after commit: ${(err as Error)?.stack ?? err}\n`);
    }
  }
  return result;
}

/**
 * Runs `fn` inside the current transaction as a unit of its own: when it throws, what it wrote
 * (and the settle hooks it registered) is undone and the transaction goes on without it.
 */
export function savepoint<T>(db: Db, fn: () => T): T {
  const state = txState(db);
  if (state.depth === 0) throw new Error('savepoint() outside a transaction');
  const mark = state.hooks.length;
  db.exec('SAVEPOINT unit');
  state.depth++;
  try {
    const result = fn();
    db.exec('RELEASE unit');
    return result;
  } catch (err) {
    db.exec('ROLLBACK TO unit');
    db.exec('RELEASE unit');
    rolledBack(db, state.hooks.splice(mark));
    throw err;
  } finally {
    state.depth--;
  }
}

/** One object of a database's schema (a table, index, trigger or view), as SQLite keeps its definition. */
export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/**
 * Every object of a database's schema but SQLite's statistics tables (`ANALYZE`'s `sqlite_stat1`
 * and `sqlite_stat4`: numbers for the planner, no code), in one order. Only those two, as tables:
 * a trigger or view named `sqlite_stat…` (written into the schema by hand) is code like any other.
 */
export function schemaObjects(db: Db): SchemaObject[] {
  return db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE NOT (type = 'table' AND name IN ('sqlite_stat1', 'sqlite_stat4')) ORDER BY type, name")
    .all() as unknown as SchemaObject[];
}

/**
 * What the schema of a database made by tel is after these migrations, applied in this order (as a
 * database records them in `schema_migrations`); undefined when one of them is not tel's.
 */
export function schemaAfter(migrationIds: readonly string[]): SchemaObject[] | undefined {
  const known = new Set(MIGRATIONS.map((m) => m.id));
  if (!migrationIds.every((id) => known.has(id))) return undefined;
  const fresh = new DatabaseSync(':memory:');
  try {
    migrate(fresh, migrationIds);
    return schemaObjects(fresh);
  } finally {
    fresh.close();
  }
}
