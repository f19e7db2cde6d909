import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker as ThreadWorker } from 'node:worker_threads';
import { commitCount, stmt, type Db } from './db.js';
import { reportDbError } from './health.js';

/** How often a serving process considers checkpointing the write-ahead log into the database file. */
export const CHECKPOINT_TICK_MS = 100;

/** A tick whose event loop was busy less than this share of the time is a quiet moment. */
const QUIET_UTILIZATION = 0.5;

/** The longest a busy server leaves committed pages in the log before checkpointing them anyway. */
export const CHECKPOINT_MAX_DEFER_MS = 3_000;

/**
 * A log of no more frames than this (a login's token, a few documents: half a MiB of 8 KiB pages) waits longer
 * for a quiet moment than a larger one (up to SMALL_LOG_MAX_DEFER_MS), and is then copied on the
 * server's own connection (see copySmallLogHere): starting the thread for it while the server is
 * busy answering reads put the thread's 7-10 MB on top of the busy server's peak RSS
 * (`../shared/bench/api.mjs --part get`), for pages that cost nothing to leave in the log a while
 * longer. A process crash loses nothing so (the log is the file's), and with
 * `storage.synchronous` at `normal` a commit's survival of a power cut never waited on a
 * checkpoint anyway.
 */
const SMALL_LOG_FRAMES = 64;

/** How long a small log (SMALL_LOG_FRAMES) waits for a quiet moment while the server is busy. */
export const SMALL_LOG_MAX_DEFER_MS = 30_000;

/** A thread's pass that copied no more log frames than this is the last of its request. */
const TAIL_FRAMES = 64;
/** Checkpoint passes of the thread per request at most (a server that commits faster than they copy). */
const MAX_PASSES = 4;

/**
 * How long the event loop must have been mostly idle before a server truncates its write-ahead
 * log. Emptying the log resets it, which SQLite reports to every other connection, the server's
 * own among them, as a change to the file: the row caches (tokens, accounts, hooks) empty, and the
 * requests that fill them again take paths the server's optimised code has not met, which V8
 * throws away and optimises again. A lab's bursts come seconds apart (truncated after a quiet
 * second, the webhooks yardstick's first burst cost 202-222 µs a delivery; kept, 182-188:
 * `scripts/bench/delivery-cost.mjs . REF --jit`, docs/performance.md); after half a minute a
 * server is idle, and its disk gets the space back.
 */
export const TRUNCATE_AFTER_QUIET_MS = 30_000;

/** A log no larger than this is left as it is (SQLite reuses it from the start). */
const WAL_KEEP_BYTES = 4 * 1024 * 1024;

/**
 * How long the checkpoint thread stays once it has had nothing to do: then it ends, and the next
 * commit starts another. A thread (its own V8 heap, Node's bootstrap, a SQLite connection) holds
 * some 10-13 MB of RSS, which a server answering reads, or idle, has no use for. But each start
 * and end of one also runs Node's stream code over the thread's stdio streams, whose shapes differ
 * from the sockets' and requests' that the server's optimised code was made for: V8 throws 7-13
 * of those functions' optimised code away at each (`--trace-deopt`), and the server's thread
 * optimises them again under the next burst of requests. Bursts a few seconds apart (a lab firing
 * calls in rounds, the delivery yardstick) met a new thread each; after a minute without work,
 * a server is idle.
 */
export const THREAD_IDLE_MS = 60_000;

/** The cadence of the fallback, should the checkpoint thread not start or fail. */
const FALLBACK_INTERVAL_MS = 250;

/**
 * Frames of the write-ahead log no checkpoint has copied yet, as SQLite's wal-index says them
 * (`PRAGMA wal_checkpoint(NOOP)`: its `log` less `checkpointed`, nothing copied). Undefined when
 * it cannot be read. A commit that changed no page (a sweep that found nothing) adds no frame.
 * Never read from the `-shm` file through a descriptor of tel's own: closing any descriptor of a
 * file drops every POSIX lock the process holds on it, SQLite's among them, and a CLI command
 * opening the file next took itself for its only user and rebuilt the wal-index under the server,
 * which died of SIGBUS (ten offline simulations beside a server were enough).
 */
export function framesToCopy(db: Db): number | undefined {
  try {
    const r = stmt(db, 'PRAGMA wal_checkpoint(NOOP)').get() as { log: number; checkpointed: number };
    return r.log < 0 ? undefined : Math.max(0, r.log - r.checkpointed);
  } catch {
    return undefined;
  }
}

/** Tunables of the checkpointer; the defaults suit a server, tests shrink them. */
export interface CheckpointerOptions {
  tickMs?: number;
  maxDeferMs?: number;
  /** the same for a log of a few frames (SMALL_LOG_FRAMES) */
  smallLogMaxDeferMs?: number;
  /** how long the event loop must have been mostly idle before the log is truncated */
  truncateAfterMs?: number;
  /** how long the thread stays with nothing to do */
  threadIdleMs?: number;
  /** how long after the start no checkpoint is asked for (what is committed meanwhile waits) */
  startDelayMs?: number;
}

/** A running checkpointer; `stop()` ends it and leaves the WAL checkpointed. */
export interface Checkpointer {
  stop(): Promise<void>;
  /** whether its thread runs now (it starts for pages to copy and ends once idle) */
  readonly threadRunning?: boolean;
}

/**
 * The thread's code: one connection of its own to the file, PASSIVE checkpoints on each request
 * (each copies what the log holds into the file without waiting for, or blocking, any reader or
 * writer), the counts of the last answered back. A busy server commits while a pass runs, so
 * another pass follows while the last one copied more than TAIL_FRAMES (a few at most); what is
 * left waits for the next request.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file, { timeout: 0 });
db.exec('PRAGMA wal_autocheckpoint = 0');
db.exec('PRAGMA cache_size = -256');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
const TAIL_FRAMES = ${TAIL_FRAMES};
const MAX_PASSES = ${MAX_PASSES};
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  if (m === 'truncate') {
    // a log already copied is emptied; a reader or writer at work makes it answer busy (no wait)
    try { parentPort.postMessage({ ok: true, truncate: true, ...truncate.get() }); }
    catch (err) { parentPort.postMessage({ ok: false, truncate: true, error: String(err && err.message || err), code: err && err.code, errcode: err && err.errcode }); }
    return;
  }
  try {
    // a pass copies the log as it was when the pass began; the next one what was committed meanwhile
    let r = checkpoint.get();
    for (let i = 1; i < MAX_PASSES; i++) {
      const next = checkpoint.get();
      const copied = next.checkpointed - r.checkpointed;
      r = next;
      // a short pass, or the log started over (everything was copied and a commit began anew)
      if (copied <= TAIL_FRAMES) break;
    }
    parentPort.postMessage({ ok: true, ...r });
  } catch (err) { parentPort.postMessage({ ok: false, error: String(err && err.message || err), code: err && err.code, errcode: err && err.errcode }); }
});
`;

/**
 * The checkpoint policy of a serving process. Committed pages are copied from the write-ahead
 * log into the database file at quiet moments — when the event loop was mostly idle over the last
 * tick — so a burst of simulated calls and deliveries does not pay for it while it lasts; a server
 * busy without pause still checkpoints every few seconds. The copying runs on a thread of its own
 * with its own connection (a PASSIVE checkpoint blocks nobody), so the event loop keeps answering
 * while seconds' worth of pages are written; pages committed meanwhile wait for its next pass
 * (once the log is wholly copied, the next commit starts it over rather than growing it). Without
 * the thread (an in-memory file, or a thread that fails) the connection checkpoints on a short
 * timer itself.
 */
export function startCheckpointer(db: Db, file: string, opts: CheckpointerOptions = {}): Checkpointer {
  const maxDeferMs = opts.maxDeferMs ?? CHECKPOINT_MAX_DEFER_MS;
  const smallLogMaxDeferMs = opts.smallLogMaxDeferMs ?? SMALL_LOG_MAX_DEFER_MS;
  const checkpointHere = () => {
    try {
      if (db.isOpen) db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch (err) {
      reportDbError(db, 'checkpoint failed', err);
    }
  };
  db.exec('PRAGMA wal_autocheckpoint = 0');
  const onDisk = file !== '' && file !== ':memory:' && !file.startsWith('file:');
  if (!onDisk) return timerCheckpointer(db, checkpointHere);

  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const threadIdleMs = opts.threadIdleMs ?? THREAD_IDLE_MS;
  /** the thread while it runs (started by the first work it gets, ended after threadIdleMs without) */
  let thread: ThreadWorker | undefined;
  /** when the thread last answered or was started (unix ms) */
  let lastWorkAt = 0;
  let fallback: Checkpointer | undefined;
  const fallBack = (why: string) => {
    if (fallback) return;
    process.stderr.write(`tel: checkpoint thread ${why}; checkpointing on the main thread\n`);
    clearInterval(tick);
    thread = undefined;
    running = false;
    fallback = timerCheckpointer(db, checkpointHere);
  };
  /** Hands `message` to the thread, starting one when none runs. */
  const post = (message: 'checkpoint' | 'truncate') => {
    running = true;
    lastWorkAt = Date.now();
    if (!thread) {
      try {
        // a small heap: the thread runs a few lines and holds nothing; it prints nothing either, so
        // its stdio is not piped into the server's (stream code that would run with other shapes)
        thread = new Worker(THREAD_SOURCE, { eval: true, stdout: true, stderr: true, name: 'tel-checkpoint', workerData: { file }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8, stackSizeMb: 1 } });
      } catch (err) {
        fallBack(`did not start (${(err as Error)?.message ?? err})`);
        return;
      }
      listen(thread);
    }
    thread.postMessage(message);
  };
  /**
   * A log of a few pages (SMALL_LOG_FRAMES: a login, a document) at a quiet moment, with no thread
   * running, is copied on this connection: 0.6-1 ms for 17-19 frames here, fsync included, where
   * starting the thread for them put 10-13 MB on the server's RSS (from 88 to 101 MiB under
   * `../shared/bench/api.mjs --part get`, whose setup leaves 11 frames) and more CPU than the copy.
   * Frames a reader of another connection holds back are left to the next tick.
   */
  const copySmallLogHere = () => {
    try {
      const r = stmt(db, 'PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number; checkpointed: number };
      if (r.log !== r.checkpointed) pendingSince ??= Date.now();
    } catch (err) {
      reportDbError(db, 'checkpoint failed', err);
    }
  };
  /** Ends an idle thread (its exit is no failure). */
  const retire = () => {
    const t = thread!;
    thread = undefined;
    t.removeAllListeners('exit');
    t.removeAllListeners('error');
    t.on('error', () => {});
    t.postMessage('close');
  };
  let stopping = false;
  let running = false;
  /** commits of this connection, and the file's change counter (other processes), when last looked at */
  let seenCommits = -1;
  let seenVersion = -1;
  /** since when the log holds pages no checkpoint has been asked to copy (unix ms) */
  let pendingSince: number | undefined;
  let elu = performance.eventLoopUtilization();
  let onDone: (() => void) | undefined;

  const listen = (t: ThreadWorker) => {
    t.unref();
    t.on('error', (err) => fallBack(`failed (${err.message})`));
    t.on('exit', () => {
      if (!stopping) fallBack('ended');
    });
    t.on('message', (m: { ok: boolean; error?: string; code?: string; errcode?: number; truncate?: boolean; log?: number; checkpointed?: number }) => {
      running = false;
      lastWorkAt = Date.now();
      // a full disk is the storage episode's news (logged once), not a line a tick
      if (!m.ok) reportDbError(db, 'checkpoint failed', Object.assign(new Error(m.error), { code: m.code, errcode: m.errcode }));
      // What was committed while the thread copied is left for its next pass, never copied here:
      // with a job thread committing batches meanwhile, that tail took this event loop 5-38 ms.
      // (A truncation that met a reader or writer is tried again after the next quiet stretch.)
      if (m.ok && !m.truncate && m.log !== m.checkpointed) pendingSince ??= Date.now();
      onDone?.();
    });
  };

  /**
   * A log a burst of writes made large stays that large (SQLite reuses it, never shrinks it):
   * once the event loop has been mostly idle for `truncateAfterMs` (small commits, such as
   * heartbeats, allowed) and the log has been copied, the thread empties it with a TRUNCATE
   * checkpoint, which waits for no one (a reader or writer at work makes it try again later).
   */
  const truncateAfterMs = opts.truncateAfterMs ?? TRUNCATE_AFTER_QUIET_MS;
  let quietSince: number | undefined;
  let nextTruncateAt = 0;
  const maybeTruncate = () => {
    const now = Date.now();
    if (quietSince === undefined || now - quietSince < truncateAfterMs || now < nextTruncateAt) return;
    nextTruncateAt = now + truncateAfterMs;
    let size = 0;
    try {
      size = statSync(`${file}-wal`).size;
    } catch {
      return;
    }
    if (size <= WAL_KEEP_BYTES) return;
    post('truncate');
  };

  const notBefore = Date.now() + (opts.startDelayMs ?? 0);
  const tick = setInterval(() => {
    const busy = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    quietSince = busy.utilization < QUIET_UTILIZATION ? (quietSince ?? Date.now()) : undefined;
    if (running || stopping || !db.isOpen || Date.now() < notBefore) return;
    const commits = commitCount(db);
    let version = seenVersion;
    try {
      version = (stmt(db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
    } catch {
      /* the next tick asks again */
    }
    if (commits !== seenCommits || version !== seenVersion) {
      // commits that wrote no page leave nothing to copy: no thread started for them
      if (framesToCopy(db) !== 0) pendingSince ??= Date.now();
      seenCommits = commits;
      seenVersion = version;
    }
    if (pendingSince === undefined) {
      maybeTruncate();
      if (!running && thread && Date.now() - lastWorkAt >= threadIdleMs) retire();
      return;
    }
    if (busy.utilization >= QUIET_UTILIZATION) {
      const waited = Date.now() - pendingSince;
      if (waited < maxDeferMs) return;
      if (waited < smallLogMaxDeferMs && (framesToCopy(db) ?? Infinity) <= SMALL_LOG_FRAMES) return;
    }
    pendingSince = undefined;
    if (!thread && busy.utilization < QUIET_UTILIZATION && (framesToCopy(db) ?? Infinity) <= SMALL_LOG_FRAMES) {
      copySmallLogHere();
      return;
    }
    post('checkpoint');
  }, opts.tickMs ?? CHECKPOINT_TICK_MS);
  tick.unref();

  return {
    get threadRunning() {
      return thread !== undefined;
    },
    async stop() {
      stopping = true;
      clearInterval(tick);
      if (fallback) return fallback.stop();
      if (thread) {
        const t = thread;
        // waited for: the thread keeps the process alive until it has finished
        t.ref();
        if (running) await new Promise<void>((resolve) => (onDone = resolve));
        const exited = new Promise<void>((resolve) => t.once('exit', () => resolve()));
        t.postMessage('close');
        await exited;
        thread = undefined;
      }
      if (!db.isOpen) return;
      db.exec('PRAGMA wal_autocheckpoint = 1000');
      checkpointHere();
    },
  };
}

/** Checkpoints on this connection every FALLBACK_INTERVAL_MS: short, so that each one is short too. */
function timerCheckpointer(db: Db, checkpointHere: () => void): Checkpointer {
  const timer = setInterval(checkpointHere, FALLBACK_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      if (!db.isOpen) return;
      db.exec('PRAGMA wal_autocheckpoint = 1000');
      checkpointHere();
    },
  };
}
