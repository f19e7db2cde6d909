import { AttemptLog, JobBook, RequestLog } from './model.js';
import type { WatchedAttempt, WatchedJob, WatchedRequest, WatchSource } from './types.js';

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
  requests: WatchedRequest[];
}

/** A log the feed follows by id, and where its rows come from. */
interface Followed<T extends { id: number; at: number }> {
  log: { addNewer(rows: T[]): void; addOlder(rows: T[]): void; readonly newestId: number; readonly oldestId: number; readonly length: number };
  after(afterId: number, limit: number): T[];
  before(beforeId: number, limit: number): T[];
  historyDone: boolean;
}

export const DEFAULT_POLL_MS = 250;
const DEFAULT_CHUNK_ROWS = 5000;
/** Bound on catch-up queries per poll, so one poll never blocks the screen for long. */
const MAX_CHUNKS_PER_POLL = 10;

/**
 * Follows the database: history in chunks (newest first), then new attempts and received
 * requests by id (`id > newest seen`) and jobs that are new or were unfinished, only when
 * `PRAGMA data_version` says another connection committed something.
 */
export class WatchFeed {
  readonly attempts = new AttemptLog();
  readonly requests = new RequestLog();
  readonly jobs = new JobBook();
  /** bumps on every change, so views know when to redraw */
  version = 0;
  /** since when (unix ms) the disk holding the database has been seen full; null while it is not */
  storageFullSince: number | null = null;
  private readonly followedAttempts: Followed<WatchedAttempt>;
  private readonly followedRequests: Followed<WatchedRequest>;
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
    this.followedAttempts = { log: this.attempts, after: (a, l) => source.attemptsAfter(a, l), before: (b, l) => source.attemptsBefore(b, l), historyDone: false };
    this.followedRequests = { log: this.requests, after: (a, l) => source.requestsAfter(a, l), before: (b, l) => source.requestsBefore(b, l), historyDone: false };
  }

  /** True once every log's history is loaded. */
  get historyDone(): boolean {
    return this.followedAttempts.historyDone && this.followedRequests.historyDone;
  }

  /**
   * First read: the newest chunk of attempts and of received requests (at most `rows` of each:
   * at least one, where following starts), and every job. Answers what it found.
   */
  prime(rows = this.chunkRows): FeedChange {
    this.primed = true;
    this.watchStorage();
    this.lastDataVersion = this.source.dataVersion();
    const limit = Math.max(1, Math.min(rows, this.chunkRows));
    const attempts = this.firstChunk(this.followedAttempts, limit);
    const requests = this.firstChunk(this.followedRequests, limit);
    const jobs = this.jobs.upsert(this.source.jobsChanged(0, []));
    this.bump();
    return { attempts, jobs, requests };
  }

  /** The newest chunk of a log; answers it oldest first. */
  private firstChunk<T extends { id: number; at: number }>(f: Followed<T>, limit: number): T[] {
    const rows = f.before(Number.MAX_SAFE_INTEGER, limit);
    f.log.addOlder(rows);
    f.historyDone = rows.length < limit;
    return [...rows].reverse();
  }

  /** Loads history until each log holds `rows` rows or has none left, reading no more than that. */
  loadHistoryUntil(rows: number): void {
    for (const f of [this.followedAttempts, this.followedRequests] as Followed<{ id: number; at: number }>[]) {
      while (!f.historyDone && f.log.length < rows) {
        const limit = Math.min(this.chunkRows, rows - f.log.length);
        const got = f.before(f.log.oldestId, limit);
        f.log.addOlder(got);
        if (got.length < limit) f.historyDone = true;
      }
    }
    this.bump();
  }

  /** Loads one more chunk of history (attempts first); answers false when there is none left. */
  loadHistoryChunk(): boolean {
    const f = [this.followedAttempts, this.followedRequests].find((x) => !x.historyDone) as Followed<{ id: number; at: number }> | undefined;
    if (!f) return false;
    const rows = f.before(f.log.oldestId, this.chunkRows);
    f.log.addOlder(rows);
    if (rows.length < this.chunkRows) f.historyDone = true;
    this.bump();
    return !this.historyDone;
  }

  /** Reads what changed since the last poll (nothing, cheaply, when no one committed). */
  poll(force = false): FeedChange {
    if (!this.primed) return this.prime();
    this.watchStorage();
    const dv = this.source.dataVersion();
    if (!force && dv === this.lastDataVersion) return { attempts: [], jobs: [], requests: [] };
    this.lastDataVersion = dv;
    const attempts = this.catchUp(this.followedAttempts);
    const requests = this.catchUp(this.followedRequests);
    const jobs = this.jobs.upsert(this.source.jobsChanged(this.jobs.newestSeq, this.jobs.unfinished));
    if (attempts.length || jobs.length || requests.length) this.bump();
    return { attempts, jobs, requests };
  }

  /** Notes when the disk fills up or has space again (a full disk commits nothing, so data_version cannot tell). */
  private watchStorage(): void {
    const full = this.source.diskFull();
    if (full === (this.storageFullSince !== null)) return;
    this.storageFullSince = full ? Date.now() : null;
    this.bump();
  }

  /** Reads a log's new rows, a bounded number of chunks a poll. */
  private catchUp<T extends { id: number; at: number }>(f: Followed<T>): T[] {
    const out: T[] = [];
    for (let i = 0; i < MAX_CHUNKS_PER_POLL; i++) {
      const rows = f.after(f.log.newestId, this.chunkRows);
      f.log.addNewer(rows);
      out.push(...rows);
      if (rows.length < this.chunkRows) break;
      // More waiting: make sure the next poll reads on even if nobody commits meanwhile.
      if (i === MAX_CHUNKS_PER_POLL - 1) this.lastDataVersion = null;
    }
    return out;
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
