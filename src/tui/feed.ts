import { AttemptLog, JobBook } from './model.js';
import type { WatchedAttempt, WatchedJob, WatchSource } from './types.js';

/** How the feed reads: poll period and chunk sizes. */
export interface FeedOptions {
  /** how often to look for changes (a `PRAGMA data_version` read when nothing changed) */
  pollMs?: number;
  /** rows read per query, for history and for catching up */
  chunkRows?: number;
  /** load history older than the first chunk, in the background (the TUI wants it; `--once` too) */
  history?: boolean;
}

/** What one poll found. */
export interface FeedChange {
  attempts: WatchedAttempt[];
  jobs: WatchedJob[];
}

export const DEFAULT_POLL_MS = 250;
const DEFAULT_CHUNK_ROWS = 5000;
/** Bound on catch-up queries per poll, so one poll never blocks the screen for long. */
const MAX_CHUNKS_PER_POLL = 10;

/**
 * Follows the database: history in chunks (newest first), then new attempts by id
 * (`id > newest seen`) and jobs that are new or were unfinished, only when
 * `PRAGMA data_version` says another connection committed something.
 */
export class WatchFeed {
  readonly attempts = new AttemptLog();
  readonly jobs = new JobBook();
  /** bumps on every change, so views know when to redraw */
  version = 0;
  historyDone = false;
  private lastDataVersion: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private historyTimer: NodeJS.Immediate | undefined;
  private listeners = new Set<() => void>();
  private readonly pollMs: number;
  private readonly chunkRows: number;
  private readonly history: boolean;
  private primed = false;

  constructor(
    readonly source: WatchSource,
    opts: FeedOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.chunkRows = opts.chunkRows ?? DEFAULT_CHUNK_ROWS;
    this.history = opts.history ?? true;
  }

  /** First read: the newest chunk of attempts and every job. Answers what it found. */
  prime(): FeedChange {
    this.primed = true;
    this.lastDataVersion = this.source.dataVersion();
    const attempts = this.source.attemptsBefore(Number.MAX_SAFE_INTEGER, this.chunkRows);
    this.attempts.addOlder(attempts);
    this.historyDone = attempts.length < this.chunkRows;
    const jobs = this.jobs.upsert(this.source.jobsChanged(0, []));
    this.bump();
    return { attempts: [...attempts].reverse(), jobs };
  }

  /** Loads one more chunk of history; answers false when there is none left. */
  loadHistoryChunk(): boolean {
    if (this.historyDone) return false;
    const rows = this.source.attemptsBefore(this.attempts.oldestId, this.chunkRows);
    this.attempts.addOlder(rows);
    if (rows.length < this.chunkRows) this.historyDone = true;
    this.bump();
    return !this.historyDone;
  }

  /** Reads what changed since the last poll (nothing, cheaply, when no one committed). */
  poll(force = false): FeedChange {
    if (!this.primed) return this.prime();
    const dv = this.source.dataVersion();
    if (!force && dv === this.lastDataVersion) return { attempts: [], jobs: [] };
    this.lastDataVersion = dv;
    const attempts: WatchedAttempt[] = [];
    for (let i = 0; i < MAX_CHUNKS_PER_POLL; i++) {
      const rows = this.source.attemptsAfter(this.attempts.newestId, this.chunkRows);
      this.attempts.addNewer(rows);
      attempts.push(...rows);
      if (rows.length < this.chunkRows) break;
      // More waiting: make sure the next poll reads on even if nobody commits meanwhile.
      if (i === MAX_CHUNKS_PER_POLL - 1) this.lastDataVersion = null;
    }
    const jobs = this.jobs.upsert(this.source.jobsChanged(this.jobs.newestSeq, this.jobs.unfinished));
    if (attempts.length || jobs.length) this.bump();
    return { attempts, jobs };
  }

  /** Starts following: polls every `pollMs`, loads history in the background. */
  start(): void {
    if (this.timer) return;
    if (!this.primed) this.prime();
    this.timer = setInterval(() => this.poll(), this.pollMs);
    if (this.history) this.scheduleHistory();
  }

  private scheduleHistory(): void {
    if (this.historyDone) return;
    this.historyTimer = setImmediate(() => {
      this.historyTimer = undefined;
      if (this.loadHistoryChunk()) this.scheduleHistory();
    });
  }

  /** Stops the timers. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.historyTimer) clearImmediate(this.historyTimer);
    this.timer = undefined;
    this.historyTimer = undefined;
  }

  /** Calls `fn` after every change; answers the unsubscribe function. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Marks a change made outside the data (a filter, an own write) and tells the listeners. */
  bump(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }
}
