import type { JobRow } from './store.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Share of a job done, 0..1. */
export function doneShare(job: Pick<JobRow, 'processed' | 'total'>): number {
  return job.total > 0 ? Math.min(1, job.processed / job.total) : 1;
}

/** One plain line about a job's progress (logs, pipes, `tel jobs list`). */
export function progressLine(job: JobRow): string {
  const pct = Math.floor(doneShare(job) * 100);
  return `job ${job.id}: ${job.status} ${fmt(job.processed)}/${fmt(job.total)} (${pct}%), ${fmt(job.successes)} added, ${fmt(job.failures)} errors`;
}

/** A progress bar for a terminal: `[#####.....]  45%  45,000/100,000  added 44,990  errors 10  12,345/s`. */
export function progressBar(job: JobRow, ratePerSecond?: number, width = 30): string {
  const share = doneShare(job);
  const filled = Math.round(share * width);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  const rate = ratePerSecond && Number.isFinite(ratePerSecond) ? `  ${fmt(ratePerSecond)}/s` : '';
  return `${bar} ${String(Math.floor(share * 100)).padStart(3)}%  ${fmt(job.processed)}/${fmt(job.total)}  added ${fmt(job.successes)}  errors ${fmt(job.failures)}  ${job.status}${rate}`;
}

/** Moves the cursor up one line and clears it, so the next line replaces the previous frame. */
export const REPLACE_LINE = '\x1b[1A\x1b[2K';

/**
 * Turns job snapshots into output: on a terminal, a bar redrawn in place (at most every
 * `frameMs`); otherwise a plain line at each tenth of the way and at each status change.
 */
export class ProgressReporter {
  private drawn = false;
  // Stryker disable next-line StringLiteral: note() reads it only once a bar is drawn, and drawing one sets it
  private lastBar = '';
  private lastFrame = 0;
  // Stryker disable next-line UnaryOperator: lastStatus '' matches no status, so the first line is printed whatever this holds
  private lastTenth = -1;
  // Stryker disable next-line StringLiteral: lastTenth -1 matches no tenth, so the first line is printed whatever this holds
  private lastStatus = '';
  // Stryker disable next-line StringLiteral: a key is `processed:status`, which no starting text without a colon matches
  private lastKey = '';
  private first?: { at: number; processed: number };

  constructor(
    private readonly write: (line: string) => void,
    private readonly tty: boolean,
    private readonly frameMs = 100,
  ) {}

  /** Prints a line of text; on a terminal it goes above the bar, which is drawn again below it. */
  note(text: string): void {
    if (!this.tty || !this.drawn) {
      this.write(text);
      return;
    }
    this.write(`${REPLACE_LINE}${text}`);
    this.write(this.lastBar);
  }

  /** Reports a snapshot; `final` forces the last frame out. */
  update(job: JobRow, final = false): void {
    const now = Date.now();
    if (job.status === 'running' && !this.first) this.first = { at: now, processed: job.processed };
    if (this.tty) {
      const key = `${job.processed}:${job.status}`;
      if (key === this.lastKey || (!final && this.drawn && now - this.lastFrame < this.frameMs)) return;
      this.lastKey = key;
      const rate = this.first && now > this.first.at ? ((job.processed - this.first.processed) * 1000) / (now - this.first.at) : undefined;
      this.lastBar = progressBar(job, rate);
      this.write(`${this.drawn ? REPLACE_LINE : ''}${this.lastBar}`);
      this.drawn = true;
      this.lastFrame = now;
      return;
    }
    const tenth = Math.floor(doneShare(job) * 10);
    if (tenth === this.lastTenth && job.status === this.lastStatus && !final) return;
    if (final && tenth === this.lastTenth && job.status === this.lastStatus) return;
    this.lastTenth = tenth;
    this.lastStatus = job.status;
    this.write(progressLine(job));
  }
}
