import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';

/**
 * Rows ordered newest first, grown at both ends in O(1): `newer` holds rows that arrived
 * while following (ascending ids), `older` the history loaded in chunks (descending ids).
 */
class NewestFirst<T extends { id: number }> {
  private newer: T[] = [];
  private older: T[] = [];

  get length(): number {
    return this.newer.length + this.older.length;
  }

  /** The row at position `i`, 0 being the newest. */
  at(i: number): T | undefined {
    const n = this.newer.length;
    return i < n ? this.newer[n - 1 - i] : this.older[i - n];
  }

  pushNewer(row: T): void {
    this.newer.push(row);
  }

  pushOlder(row: T): void {
    this.older.push(row);
  }

  clear(): void {
    this.newer = [];
    this.older = [];
  }

  /** Position of the row with this id, or where it would be (ids descend with position). */
  positionOf(id: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid)!.id > id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.newer.length - 1; i >= 0; i--) yield this.newer[i];
    yield* this.older;
  }
}

/** Totals of the attempts in scope (all loaded rows, whatever the filter). */
export interface AttemptTotals {
  total: number;
  successes: number;
  failures: number;
}

/**
 * Rows followed by id (attempts, received requests), newest first, with a filtered view kept up
 * to date as rows arrive; `tally` counts each loaded row into a subclass's totals.
 */
class FollowedLog<T extends { id: number; at: number }> {
  private all = new NewestFirst<T>();
  private shown = new NewestFirst<T>();
  private predicate: (row: T) => boolean = () => true;

  protected tally(_row: T): void {}

  /** Adds rows newer than every loaded one (oldest first, as they are read). */
  addNewer(rows: T[]): void {
    for (const r of rows) {
      this.all.pushNewer(r);
      this.tally(r);
      if (this.predicate(r)) this.shown.pushNewer(r);
    }
  }

  /** Adds history older than every loaded row (newest first, as it is read). */
  addOlder(rows: T[]): void {
    for (const r of rows) {
      this.all.pushOlder(r);
      this.tally(r);
      if (this.predicate(r)) this.shown.pushOlder(r);
    }
  }

  /** Replaces the filter and rebuilds the view (one pass over the loaded rows). */
  setFilter(predicate: (row: T) => boolean): void {
    this.predicate = predicate;
    this.shown.clear();
    for (const r of this.all) if (predicate(r)) this.shown.pushOlder(r);
  }

  /** Rows the filter lets through. */
  get length(): number {
    return this.shown.length;
  }

  /** The shown row at position `i` (0 is the newest). */
  at(i: number): T | undefined {
    return this.shown.at(i);
  }

  /** Position of the shown row with this id, or of the nearest older one. */
  positionOf(id: number): number {
    return this.shown.positionOf(id);
  }

  /** The newest loaded id (0 when none), where following resumes. */
  get newestId(): number {
    return this.all.at(0)?.id ?? 0;
  }

  /** The oldest loaded id (Infinity when none), where loading history resumes. */
  get oldestId(): number {
    return this.all.length ? this.all.at(this.all.length - 1)!.id : Number.POSITIVE_INFINITY;
  }

  /** Rows made at or after `sinceMs`: a binary search, since time grows with the id. */
  countSince(sinceMs: number): number {
    let lo = 0;
    let hi = this.all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.all.at(mid)!.at >= sinceMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Every attempt in scope, newest first, with a filtered view. */
export class AttemptLog extends FollowedLog<WatchedAttempt> {
  readonly totals: AttemptTotals = { total: 0, successes: 0, failures: 0 };

  protected override tally(r: WatchedAttempt): void {
    this.totals.total++;
    if (r.result === 'success') this.totals.successes++;
    else this.totals.failures++;
  }
}

/** Totals of the received requests in scope, by signature verdict. */
export interface RequestTotals {
  total: number;
  valid: number;
  /** invalid or of an unknown hook */
  bad: number;
}

/** Every request the sink received in scope, newest first, with a filtered view. */
export class RequestLog extends FollowedLog<WatchedRequest> {
  readonly totals: RequestTotals = { total: 0, valid: 0, bad: 0 };

  protected override tally(r: WatchedRequest): void {
    this.totals.total++;
    if (r.verdict === 'valid') this.totals.valid++;
    else if (r.verdict !== 'unsigned') this.totals.bad++;
  }
}

const FINISHED = new Set(['complete', 'failed']);

/** Every job in scope, newest created first, with a filtered view. */
export class JobBook {
  private byId = new Map<string, WatchedJob>();
  private sorted: WatchedJob[] = [];
  private shown: WatchedJob[] = [];
  private predicate: (row: WatchedJob) => boolean = () => true;
  private maxSeq = 0;
  private open = new Set<number>();

  /** Inserts or replaces jobs; answers those that are new or changed (status or counts). */
  upsert(rows: WatchedJob[]): WatchedJob[] {
    const changed: WatchedJob[] = [];
    for (const r of rows) {
      if (r.seq > this.maxSeq) this.maxSeq = r.seq;
      if (FINISHED.has(r.status)) this.open.delete(r.seq);
      else this.open.add(r.seq);
      const before = this.byId.get(r.id);
      if (before && before.status === r.status && before.successes === r.successes && before.failures === r.failures && before.total === r.total) {
        continue;
      }
      this.byId.set(r.id, r);
      changed.push(r);
    }
    if (changed.length) {
      this.sorted = [...this.byId.values()].sort((a, b) => b.seq - a.seq);
      this.shown = this.sorted.filter(this.predicate);
    }
    return changed;
  }

  /** Replaces the filter. */
  setFilter(predicate: (row: WatchedJob) => boolean): void {
    this.predicate = predicate;
    this.shown = this.sorted.filter(predicate);
  }

  get length(): number {
    return this.shown.length;
  }

  at(i: number): WatchedJob | undefined {
    return this.shown[i];
  }

  /** Position of the shown job with this id, or -1. */
  indexOf(id: string): number {
    return this.shown.findIndex((j) => j.id === id);
  }

  /** The newest job key seen, where following resumes. */
  get newestSeq(): number {
    return this.maxSeq;
  }

  /** Keys of jobs that were unfinished when last read: read again until they finish. */
  get unfinished(): number[] {
    return [...this.open];
  }

  /** Counts by status, over every job in scope. */
  statusCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const j of this.byId.values()) out[j.status] = (out[j.status] ?? 0) + 1;
    return out;
  }

  get total(): number {
    return this.byId.size;
  }
}
