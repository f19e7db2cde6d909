import type { Core } from '../core-type.js';
import type { Worker } from '../core-type.js';
import { isBusy } from '../store/db.js';
import { claimableJobs, claimJob, failJob, releaseJob, runClaimedJob } from './run.js';
import { jobSettings } from './settings.js';
import { JobThread } from './thread.js';

const executors = new WeakMap<Core, JobExecutor>();

/** Most jobs one pass takes before it looks at the clock and the settings again. */
const JOBS_PER_PASS = 100;

/**
 * The server's number-job executor: runs pending jobs (its own API's at once, other
 * processes' within a poll interval), one at a time, and resumes stalled jobs — at start and
 * every `job_recover_timeout_s`. The jobs run on a thread of their own with its own connection
 * (see thread.ts), so that requests are answered while numbers are added; this process only
 * decides when. Stopping finishes the batch in flight and releases the job.
 */
export class JobExecutor implements Worker {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private stopping = false;
  private kicked = false;
  /** 0 makes the first pass (server start) a recovery pass */
  private lastRecovery = 0;
  /** where the jobs run (started at the first one) */
  readonly thread: JobThread;

  constructor(private readonly core: Core) {
    this.thread = new JobThread(core);
  }

  /** Starts polling; the first pass also recovers stalled jobs. */
  start(): this {
    executors.set(this.core, this);
    this.schedule(0);
    return this;
  }

  /** Asks for a pass soon (a job was just created in this process). */
  kick(): void {
    if (this.stopping) return;
    if (this.pass) this.kicked = true;
    else this.schedule(0);
  }

  /** Stops polling and waits for the job in flight to reach a batch boundary. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.thread.askToStop();
    await this.pass;
    await this.thread.close();
    if (executors.get(this.core) === this) executors.delete(this.core);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runPass(), ms);
    this.timer.unref();
  }

  private runPass(): void {
    if (this.stopping || this.pass) return;
    this.kicked = false;
    this.pass = this.drain()
      .catch((err) => {
        process.stderr.write(`tel: job executor: ${(err as Error)?.stack ?? String(err)}\n`);
      })
      .finally(() => {
        this.pass = undefined;
        if (!this.stopping) this.schedule(this.kicked ? 0 : jobSettings(this.core).pollIntervalMs);
      });
  }

  private async drain(): Promise<void> {
    const settings = jobSettings(this.core);
    const now = Date.now();
    const recovering = now - this.lastRecovery >= settings.recoverIntervalMs;
    if (recovering) this.lastRecovery = now;
    const staleBefore = recovering ? now - settings.recoverThresholdMs : undefined;
    // looked at here (one indexed read): the thread starts only when there is a job to run
    if (claimableJobs(this.core, staleBefore, 1).length === 0) return;
    if (this.thread.usable) {
      try {
        return await this.thread.drain(staleBefore);
      } catch {
        // the thread failed (it said why): this process runs the jobs from now on
      }
    }
    await drainJobs(this.core, staleBefore, () => this.stopping);
  }
}

/**
 * Runs the jobs an executor may take now (pending, released, and stalled ones when
 * `staleBefore` is given), one after the other, until none is left or `shouldStop` says so.
 * `claimed` hears of each job taken (the thread tells the server, which releases it should the
 * thread fail).
 */
export async function drainJobs(core: Core, staleBefore: number | undefined, shouldStop: () => boolean, claimed?: (seq: number, runner: string) => void): Promise<void> {
  for (const seq of claimableJobs(core, staleBefore, JOBS_PER_PASS)) {
    if (shouldStop()) return;
    const runner = claimJob(core, seq, staleBefore);
    if (!runner) continue;
    claimed?.(seq, runner);
    try {
      await runClaimedJob(core, seq, runner, { shouldStop });
    } catch (err) {
      // A lock held a while by another process is retried on the next pass; anything else would fail again.
      if (!isBusy(err)) process.stderr.write(`tel: job ${seq} stopped: ${(err as Error)?.message ?? String(err)}\n`);
      try {
        if (isBusy(err)) releaseJob(core, seq, runner);
        else failJob(core, seq, runner, String((err as Error)?.message ?? err));
      } catch {
        // Still locked: the job stays claimed and is recovered once stalled.
      }
    }
  }
}

/** Starts the executor of a serving core (the resources module's background worker). */
export function startJobExecutor(core: Core): Worker {
  return new JobExecutor(core).start();
}

/** The job thread of this process's executor (a server's), if any. */
export function jobThreadOf(core: Core): JobThread | undefined {
  const thread = executors.get(core)?.thread;
  return thread?.usable ? thread : undefined;
}

/** Tells this process's executor, if any, that a job is waiting (the CLI has none: servers poll). */
export function kickJobs(core: Core): void {
  executors.get(core)?.kick();
}
