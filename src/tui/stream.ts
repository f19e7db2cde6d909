import type { WatchFeed } from './feed.js';
import { attemptLine, jobLine, requestLine } from './format.js';
import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';

/** How the plain stream runs (stdout not a terminal). */
export interface StreamOptions {
  /** print what exists and return, instead of following */
  once: boolean;
  /** how many existing attempts (and jobs) to print first; all when undefined */
  tail?: number;
  /** one JSON object a line instead of text */
  json: boolean;
  pollMs: number;
  /** aborted on SIGINT/SIGTERM or when the reader goes away */
  signal: AbortSignal;
}

function attemptOut(r: WatchedAttempt, json: boolean): string {
  return json ? JSON.stringify({ type: 'attempt', ...r }) : attemptLine(r);
}

function jobOut(r: WatchedJob, json: boolean): string {
  return json ? JSON.stringify({ type: 'job', ...r }) : jobLine(r);
}

function requestOut(r: WatchedRequest, json: boolean): string {
  return json ? JSON.stringify({ type: 'received', ...r }) : requestLine(r);
}

/** A log's loaded rows, oldest first. */
function oldestFirst<T>(log: { length: number; at(i: number): T | undefined }): T[] {
  const rows: T[] = [];
  for (let i = log.length - 1; i >= 0; i--) rows.push(log.at(i)!);
  return rows;
}

function lastOf<T>(rows: T[], n: number | undefined): T[] {
  return n === undefined ? rows : rows.slice(Math.max(0, rows.length - n));
}

/**
 * The line stream: existing jobs, attempts and received requests (oldest first), then, unless
 * `once`, one line per new attempt, job change or received request, until the signal aborts.
 */
export async function runStream(feed: WatchFeed, out: (line: string) => void, opts: StreamOptions): Promise<void> {
  // Load only as much history as will be printed: `tail` rows of each log, or all of it.
  const first = feed.prime(opts.tail);
  if (opts.tail === undefined) while (feed.loadHistoryChunk());
  else feed.loadHistoryUntil(opts.tail);
  for (const j of lastOf(first.jobs, opts.tail)) out(jobOut(j, opts.json));
  for (const a of lastOf(oldestFirst(feed.attempts), opts.tail)) out(attemptOut(a, opts.json));
  for (const r of lastOf(oldestFirst(feed.requests), opts.tail)) out(requestOut(r, opts.json));
  if (opts.once) return;
  while (!opts.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, opts.pollMs);
      function done() {
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', done);
        resolve();
      }
      opts.signal.addEventListener('abort', done);
    });
    if (opts.signal.aborted) break;
    const change = feed.poll();
    for (const a of change.attempts) out(attemptOut(a, opts.json));
    for (const j of change.jobs) out(jobOut(j, opts.json));
    for (const r of change.requests) out(requestOut(r, opts.json));
  }
}
