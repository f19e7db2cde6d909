import type { Core } from '../core-type.js';
import type { Worker } from '../core-type.js';
import { isBusy } from '../store/db.js';
import { holdsWhileFaulty, noteStorageFault, onStorageBack, reportDbError, storageFaulty } from '../store/health.js';
import { claimableJobs, claimJob, failJob, releaseJob, runClaimedJob } from './run.js';
import { jobSettings } from './settings.js';
import { setLongTimeout, type LongTimeout } from '../util/timers.js';

const executors = new WeakMap<Core, JobExecutor>();

/** Most jobs one pass takes before it looks at the clock and the settings again. */
const JOBS_PER_PASS = 100;

/**
 * The server's number-job executor: runs pending jobs (its own API's at once, other
 * processes' within a poll interval), one at a time, and resumes stalled jobs — at start and
 * every `job_recover_timeout_s`. Stopping finishes the batch in flight and releases the job.
 */
export class JobExecutor implements Worker {
  private timer: LongTimeout | undefined;
  private pass: Promise<void> | undefined;
  private stopping = false;
  private kicked = false;
  /** 0 makes the first pass (server start) a recovery pass */
  private lastRecovery = 0;
  /** a job this executor still holds, stopped by a file that took no writes: resumed first */
  private held: { seq: number; runner: string } | undefined;
  private readonly withdraw: (() => void)[] = [];

  constructor(private readonly core: Core) {}

  /** Starts polling; the first pass also recovers stalled jobs. */
  start(): this {
    executors.set(this.core, this);
    this.withdraw.push(
      holdsWhileFaulty(this.core.db, 'jobs', () => (this.held ? 1 : 0)),
      onStorageBack(this.core.db, () => this.kick()),
    );
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
    this.timer?.clear();
    await this.pass;
    for (const fn of this.withdraw.splice(0)) fn();
    if (this.held) {
      // handed over at once, as a job stopped between batches is; on a disk still full it is
      // resumed by another executor once stalled
      try {
        releaseJob(this.core, this.held.seq, this.held.runner);
      } catch (err) {
        reportDbError(this.core.db, `job ${this.held.seq}`, err);
      }
    }
    if (executors.get(this.core) === this) executors.delete(this.core);
  }

  private schedule(ms: number): void {
    this.timer?.clear();
    this.timer = setLongTimeout(() => this.runPass(), ms, { unref: true });
  }

  private runPass(): void {
    if (this.stopping || this.pass) return;
    this.kicked = false;
    this.pass = this.drain()
      .catch((err) => reportDbError(this.core.db, 'job executor', err))
      .finally(() => {
        this.pass = undefined;
        if (!this.stopping) this.schedule(this.kicked ? 0 : jobSettings(this.core).pollIntervalMs);
      });
  }

  private async drain(): Promise<void> {
    // while the file takes no writes, jobs wait (kicked again when it does)
    if (storageFaulty(this.core.db)) return;
    if (this.held && !(await this.run(this.held.seq, this.held.runner))) return;
    const settings = jobSettings(this.core);
    const now = Date.now();
    const recovering = now - this.lastRecovery >= settings.recoverIntervalMs;
    if (recovering) this.lastRecovery = now;
    const staleBefore = recovering ? now - settings.recoverThresholdMs : undefined;
    for (const seq of claimableJobs(this.core, staleBefore, JOBS_PER_PASS)) {
      if (this.stopping) return;
      const runner = claimJob(this.core, seq, staleBefore);
      if (runner && !(await this.run(seq, runner))) return;
    }
  }

  /**
   * Runs a claimed job to its end (or to a stop); answers false when the file took no writes: the
   * job then stays this executor's, held, to be resumed where its last batch ended.
   */
  private async run(seq: number, runner: string): Promise<boolean> {
    try {
      await runClaimedJob(this.core, seq, runner, { shouldStop: () => this.stopping });
      this.held = undefined;
      return true;
    } catch (err) {
      if (noteStorageFault(this.core.db, err)) {
        this.held = { seq, runner };
        return false;
      }
      this.held = undefined;
      // A lock held a while by another process is retried on the next pass; anything else would fail again.
      if (!isBusy(err)) process.stderr.write(`tel: job ${seq} stopped: ${(err as Error)?.message ?? String(err)}\n`);
      try {
        if (isBusy(err)) releaseJob(this.core, seq, runner);
        else failJob(this.core, seq, runner, String((err as Error)?.message ?? err));
      } catch {
        // Still locked: the job stays claimed and is recovered once stalled.
      }
      return true;
    }
  }
}

/** Starts the executor of a serving core (the resources module's background worker). */
export function startJobExecutor(core: Core): Worker {
  return new JobExecutor(core).start();
}

/** Tells this process's executor, if any, that a job is waiting (the CLI has none: servers poll). */
export function kickJobs(core: Core): void {
  executors.get(core)?.kick();
}
