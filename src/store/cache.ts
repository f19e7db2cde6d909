import type { Db } from './db.js';
import { onRollback, stmt } from './db.js';

interface VersionState {
  version: number;
  /** performance.now() of the reading */
  readAt: number;
}

/** One change counter per connection, shared by its row caches. */
const versions = new WeakMap<Db, VersionState>();

/**
 * How long one reading of the change counter stands: a commit of another process is seen by the
 * caches within a millisecond. Read for each request instead (each its own macrotask under load),
 * `PRAGMA data_version` was some 6% of an authenticated GET's time on the server.
 */
const VERSION_FOR_MS = 1;

/**
 * The process's `performance`, read once: the global is a getter (Node defines it lazily), which
 * each read calls; with ~6 cache reads a request, its calls were 0.6% of an authenticated GET's
 * on-CPU time (perf).
 */
let clock: typeof performance | undefined;

/** The change counter's last reading of a connection (one per connection, shared by its caches). */
function versionState(db: Db): VersionState {
  let state = versions.get(db);
  if (!state) versions.set(db, (state = { version: -1, readAt: -Infinity }));
  return state;
}

/**
 * The database's change counter as this connection sees it: it moves when another connection
 * (the offline CLI, another server, the job thread) commits.
 */
function dataVersion(db: Db, state: VersionState): number {
  const now = (clock ??= performance).now();
  if (now - state.readAt >= VERSION_FOR_MS) {
    state.version = (stmt(db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
    state.readAt = now;
  }
  return state.version;
}

/** The longest key a row cache keeps (ids are 32 characters, tokens a few hundred). */
export const MAX_CACHED_KEY_CHARS = 1024;
/** The characters of keys one row cache holds before it starts over. */
const MAX_CACHE_KEY_CHARS = 2_000_000;

/**
 * A read-through cache of rows, emptied when another process changes the file and when this
 * process calls `clear()` after its own writes. For hot reads on every request (tokens, accounts).
 */
export class RowCache<V> {
  private rows = new Map<string, V | null>();
  private keyChars = 0;
  private seen = -1;
  private readonly version: VersionState;
  /**
   * The key asked last and its row (null: none). A client sends its token request after request,
   * each time in a new string of a few hundred characters, which a map lookup hashes anew; the
   * same string compared with the last key costs a fraction of that (hashing the token, here and
   * for the envelope's JSON, was 4,000 of an authenticated GET's 137,000 instructions, callgrind).
   */
  private lastKey: string | undefined;
  private lastRow: V | null = null;

  constructor(
    private readonly db: Db,
    private readonly maxEntries = 10_000,
  ) {
    this.version = versionState(db);
  }

  /**
   * The cached row for `key`, or what `load` reads (a miss is cached too). Keys come from
   * clients (tokens, ids in paths): a key longer than any real one is never kept, and the
   * cache empties at its entry or key-size budget, so refused guesses cannot grow it. `load`
   * gets the key and the connection: the hot readers pass a function of their module rather
   * than a closure made at each read (which was 5% of an authenticated GET's garbage).
   */
  get(key: string, load: (key: string, db: Db) => V | undefined): V | undefined {
    const v = dataVersion(this.db, this.version);
    if (v !== this.seen) {
      this.clear();
      this.seen = v;
    }
    if (key === this.lastKey) return this.lastRow ?? undefined;
    let row = this.rows.get(key);
    if (row === undefined) {
      const loaded = load(key, this.db);
      if (key.length > MAX_CACHED_KEY_CHARS) return loaded;
      if (this.rows.size >= this.maxEntries || this.keyChars + key.length > MAX_CACHE_KEY_CHARS) this.clear();
      row = loaded ?? null;
      this.rows.set(key, row);
      this.keyChars += key.length;
    }
    this.lastKey = key;
    this.lastRow = row;
    return row ?? undefined;
  }

  /** Forgets one row, or every row. */
  clear(key?: string): void {
    this.lastKey = undefined;
    this.lastRow = null;
    if (key === undefined) {
      this.rows.clear();
      this.keyChars = 0;
    } else if (this.rows.delete(key)) this.keyChars -= key.length;
  }
}

const caches = new WeakMap<Db, Map<string, RowCache<unknown>>>();

/** The named row cache of a connection (one per table that needs one). */
export function rowCache<V>(db: Db, name: string): RowCache<V> {
  let byName = caches.get(db);
  if (!byName) {
    byName = new Map();
    caches.set(db, byName);
  }
  let c = byName.get(name);
  if (!c) {
    const created = new RowCache<V>(db);
    onRollback(db, () => created.clear());
    byName.set(name, created);
    c = created;
  }
  return c as RowCache<V>;
}

/** Empties every row cache of a connection (after a write that touches many tables at once). */
export function clearRowCaches(db: Db): void {
  for (const c of caches.get(db)?.values() ?? []) c.clear();
}
