import { statfsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { STORAGE_CAUSES, storageFaultOf, type StorageFault } from '../errors.js';
import { isBusy, transaction, type Db } from './db.js';

/**
 * The storage health of a serving process's database: a write that fails because the disk is
 * full, the file read-only or its I/O failing opens an episode, logged once when it starts and
 * once when it ends (with how many requests it refused), instead of a stack per request. While
 * it lasts, work that must be recorded waits (the delivery sender starts no tries, the job
 * executor runs no batch); a probe every second finds when writes work again. `storageState`
 * is what `/metrics` shows of it; `tel watch` tells a full disk by its free space (`diskFull`).
 */

/** Free space under which the disk holding a database counts as full: a few busy commits' log. */
export const LOW_SPACE_BYTES = 1024 * 1024;

/** How often, during an episode, the process looks whether writes work again. */
const PROBE_INTERVAL_MS = 1000;

interface Episode {
  fault: StorageFault;
  /** unix ms */
  since: number;
  /** requests answered 507/503 during it */
  refused: number;
  /** SQLite's own words for the first failure */
  detail: string;
}

interface Health {
  episode?: Episode;
  probe?: NodeJS.Timeout;
  episodes: number;
  refusedTotal: number;
  back: Set<() => void>;
  waiting: Map<string, () => number>;
}

const healths = new WeakMap<Db, Health>();

function healthOf(db: Db): Health {
  let h = healths.get(db);
  if (!h) healths.set(db, (h = { episodes: 0, refusedTotal: 0, back: new Set(), waiting: new Map() }));
  return h;
}

/** What `/metrics` shows of the storage. */
export interface StorageState {
  /** `ok`, or what writes meet now */
  status: 'ok' | StorageFault;
  /** when the current episode began (unix ms); null when writes work */
  since: number | null;
  /** requests refused (507/503) in the current episode */
  refused: number;
  /** episodes since the process started, and the requests all of them refused */
  episodes: number;
  refusedTotal: number;
  /** work held in memory until it can be recorded, by worker (`deliveries`, `jobs`); 0 when writes work */
  waiting: Record<string, number>;
}

/** The storage state of `db` as this process sees it. */
export function storageState(db: Db): StorageState {
  const h = healthOf(db);
  const e = h.episode;
  const waiting: Record<string, number> = {};
  for (const [name, count] of h.waiting) waiting[name] = e ? count() : 0;
  return { status: e?.fault ?? 'ok', since: e?.since ?? null, refused: e?.refused ?? 0, episodes: h.episodes, refusedTotal: h.refusedTotal, waiting };
}

/** The storage state as Prometheus text lines (what `GET /metrics` appends). */
export function storageMetrics(db: Db): string {
  const s = storageState(db);
  const lines = [
    '# HELP tel_storage_fault 1 while writes to the database fail, by what they meet.',
    '# TYPE tel_storage_fault gauge',
    ...(Object.keys(STORAGE_CAUSES) as StorageFault[]).map((f) => `tel_storage_fault{fault="${f}"} ${s.status === f ? 1 : 0}`),
    '# HELP tel_storage_fault_since_seconds When the current storage fault began (unix seconds); 0 while writes work.',
    '# TYPE tel_storage_fault_since_seconds gauge',
    `tel_storage_fault_since_seconds ${s.since === null ? 0 : Math.floor(s.since / 1000)}`,
    '# HELP tel_storage_refused_requests_total Requests answered 507 or 503 because the database could not be written.',
    '# TYPE tel_storage_refused_requests_total counter',
    `tel_storage_refused_requests_total ${s.refusedTotal}`,
    '# HELP tel_storage_waiting Work held until the database can record it, by worker.',
    '# TYPE tel_storage_waiting gauge',
    ...Object.entries(s.waiting).map(([worker, n]) => `tel_storage_waiting{worker="${worker}"} ${n}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** True while writes to `db` are known to fail: work that must be recorded waits. */
export function storageFaulty(db: Db): boolean {
  return healths.get(db)?.episode !== undefined;
}

/**
 * Records an error a serving process met on `db`. A storage fault opens an episode (logged once,
 * then probed until writes work); answers the fault, or undefined for any other error.
 */
export function noteStorageFault(db: Db, err: unknown): StorageFault | undefined {
  const fault = storageFaultOf(err);
  if (!fault) return undefined;
  const h = healthOf(db);
  if (h.episode) return fault;
  const now = Date.now();
  h.episode = { fault, since: now, refused: 0, detail: (err as Error).message };
  h.episodes++;
  log(db, `since ${clock(now)}, ${STORAGE_CAUSES[fault]} (SQLite: ${h.episode.detail}); requests that write answer ${fault === 'full' ? 507 : 503}, deliveries and jobs wait`);
  h.probe = setInterval(() => probe(db, h), PROBE_INTERVAL_MS);
  h.probe.unref();
  return fault;
}

/** Counts a request answered 507/503 for the current episode. */
export function countRefused(db: Db): void {
  const h = healthOf(db);
  if (h.episode) h.episode.refused++;
  h.refusedTotal++;
}

/** Calls `fn` each time writes work again after an episode; answers the function that stops it. */
export function onStorageBack(db: Db, fn: () => void): () => void {
  const h = healthOf(db);
  h.back.add(fn);
  return () => h.back.delete(fn);
}

/** Declares work a worker holds while the storage fails (`/metrics` shows it); answers the function that withdraws it. */
export function holdsWhileFaulty(db: Db, worker: string, count: () => number): () => void {
  const h = healthOf(db);
  h.waiting.set(worker, count);
  return () => {
    if (h.waiting.get(worker) === count) h.waiting.delete(worker);
  };
}

/**
 * How a background task of a serving process reports an error of `db`: another process holding
 * the file a moment is no news (the task tries again), a storage fault is the episode's, anything
 * else one line naming the task.
 */
export function reportDbError(db: Db, task: string, err: unknown): void {
  if (isBusy(err) || noteStorageFault(db, err)) return;
  process.stderr.write(`tel: ${task}: ${(err as Error)?.message ?? err}\n`);
}

/**
 * True when the file system holding `file` has less than LOW_SPACE_BYTES free for this process
 * (root may use the blocks kept for it); false when it cannot tell.
 */
export function diskFull(file: string): boolean {
  try {
    const s = statfsSync(dirname(file));
    const blocks = process.getuid?.() === 0 ? s.bfree : s.bavail;
    return blocks * s.bsize < LOW_SPACE_BYTES;
  } catch {
    return false;
  }
}

/**
 * One look whether an episode is over: a full disk must have space again, and then a one-page
 * write (the schema number rewritten as it is, under the write lock) must commit.
 */
function probe(db: Db, h: Health): void {
  const e = h.episode;
  if (!e || !db.isOpen) return endProbe(h);
  const file = db.location();
  if (e.fault === 'full' && file && diskFull(file)) return;
  try {
    transaction(db, () => {
      const { user_version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
      db.exec(`PRAGMA user_version = ${user_version}`);
    });
  } catch (err) {
    // still failing (or the lock is another process's a moment): the next tick looks again
    if (!isBusy(err) && !storageFaultOf(err)) process.stderr.write(`tel: storage probe: ${(err as Error)?.message ?? err}\n`);
    return;
  }
  endProbe(h);
  h.episode = undefined;
  const now = Date.now();
  log(db, `writes work again at ${clock(now)} (${STORAGE_NAMES[e.fault]} for ${duration(now - e.since)}; ${e.refused} ${e.refused === 1 ? 'request' : 'requests'} refused)`);
  for (const fn of h.back) {
    try {
      fn();
    } catch (err) {
      reportDbError(db, 'after storage came back', err);
    }
  }
}

function endProbe(h: Health): void {
  if (h.probe) clearInterval(h.probe);
  h.probe = undefined;
}

const STORAGE_NAMES: Record<StorageFault, string> = { full: 'full', io_error: 'failing', read_only: 'read-only', cannot_open: 'unreachable' };

function log(db: Db, text: string): void {
  const file = db.location();
  process.stderr.write(`tel: storage${file ? ` of ${basename(file)}` : ''}: ${text}\n`);
}

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
