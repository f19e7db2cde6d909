import type { WatchFeed } from './feed.js';
import { attemptLine, jobLine } from './format.js';
import type { WatchedAttempt, WatchedJob } from './types.js';

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

function lastOf<T>(rows: T[], n: number | undefined): T[] {
  return n === undefined ? rows : rows.slice(Math.max(0, rows.length - n));
}

/**
 * The line stream: existing attempts and jobs (oldest first), then, unless `once`, one line
 * per new attempt or job change, until the signal aborts.
 */
export async function runStream(feed: WatchFeed, out: (line: string) => void, opts: StreamOptions): Promise<void> {
  const first = feed.prime();
  // Load only as much history as will be printed.
  while ((opts.tail === undefined || feed.attempts.length < opts.tail) && feed.loadHistoryChunk());
  const attempts: WatchedAttempt[] = [];
  for (let i = feed.attempts.length - 1; i >= 0; i--) attempts.push(feed.attempts.at(i)!);
  for (const j of lastOf(first.jobs, opts.tail)) out(jobOut(j, opts.json));
  for (const a of lastOf(attempts, opts.tail)) out(attemptOut(a, opts.json));
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
  }
}
