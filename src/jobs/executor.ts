import type { Core } from '../core-type.js';
import type { Worker } from '../core-type.js';
import { storageFaultOf } from '../errors.js';
import { isBusy } from '../store/db.js';
import { holdsWhileFaulty, noteStorageFault, onStorageBack, reportDbError, storageFaulty } from '../store/health.js';
import { claimableJobs, claimJob, failJob, releaseJob, runClaimedJob } from './run.js';
import { jobSettings } from './settings.js';
import { setLongTimeout, type LongTimeout } from '../util/timers.js';
import { JobThread } from './thread.js';

const executors = new WeakMap<Core, JobExecutor>();

/** Most jobs one pass takes before it looks at the clock and the settings again. */
const JOBS_PER_PASS = 100;

/** A claimed job whose run a storage fault stopped: its runner resumes it where its last batch ended. */
export interface HeldJob {
  seq: number;
  runner: string;
}

/** How a pass ended: a job held by a file that took no writes, and that write's error. */
export interface DrainOutcome {
  held?: HeldJob;
  fault?: unknown;
}

/**
 * The server's number-job executor: runs pending jobs (its own API's at once, other
 * processes' within a poll interval), one at a time, and resumes stalled jobs — at start and
 * every `job_recover_timeout_s`. The jobs run on a thread of their own with its own connection
 * (see thread.ts), so that requests are answered while numbers are added; this process only
 * decides when. Stopping finishes the batch in flight and releases the job.
 */
export class JobExecutor implements Worker {
  private timer: LongTimeout | undefined;
  private pass: Promise<void> | undefined;
  private stopping = false;
  private kicked = false;
  /** 0 makes the first pass (server start) a recovery pass */
  private lastRecovery = 0;
  /** a job this executor still holds, stopped by a file that took no writes: resumed first */
  private held: HeldJob | undefined;
  private readonly withdraw: (() => void)[] = [];
  /** where the jobs run (started at the first one) */
  readonly thread: JobThread;

  constructor(private readonly core: Core) {
    this.thread = new JobThread(core);
  }

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
    this.thread.askToStop();
    await this.pass;
    await this.thread.close();
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
    const settings = jobSettings(this.core);
    const now = Date.now();
    const recovering = now - this.lastRecovery >= settings.recoverIntervalMs;
    if (recovering) this.lastRecovery = now;
    const staleBefore = recovering ? now - settings.recoverThresholdMs : undefined;
    // looked at here (one indexed read): the thread starts only when there is a job to run
    if (!this.held && claimableJobs(this.core, staleBefore, 1).length === 0) return;
    let outcome: DrainOutcome | undefined;
    if (this.thread.usable) {
      try {
        outcome = await this.thread.drain(staleBefore, this.held);
      } catch {
        // the thread failed (it said why): this process runs the jobs from now on
      }
    }
    outcome ??= await drainJobs(this.core, staleBefore, () => this.stopping, undefined, this.held);
    this.held = outcome.held;
    if (outcome.fault !== undefined) noteStorageFault(this.core.db, outcome.fault);
  }
}

/**
 * Runs the jobs an executor may take now — first the one it `held`, then pending, released, and
 * stalled ones when `staleBefore` is given — one after the other, until none is left, `shouldStop`
 * says so, or the file takes no writes (that job is then answered held, to be resumed first).
 * `claimed` hears of each job taken (the thread tells the server, which releases it should the
 * thread fail).
 */
export async function drainJobs(
  core: Core,
  staleBefore: number | undefined,
  shouldStop: () => boolean,
  claimed?: (seq: number, runner: string) => void,
  held?: HeldJob,
): Promise<DrainOutcome> {
  if (held) {
    claimed?.(held.seq, held.runner);
    const fault = await runJob(core, held, shouldStop);
    if (fault !== undefined) return { held, fault };
  }
  for (const seq of claimableJobs(core, staleBefore, JOBS_PER_PASS)) {
    if (shouldStop()) return {};
    const runner = claimJob(core, seq, staleBefore);
    if (!runner) continue;
    claimed?.(seq, runner);
    const fault = await runJob(core, { seq, runner }, shouldStop);
    if (fault !== undefined) return { held: { seq, runner }, fault };
  }
  return {};
}

/** Runs a claimed job to its end (or to a stop); answers the error when the file took no writes. */
async function runJob(core: Core, { seq, runner }: HeldJob, shouldStop: () => boolean): Promise<unknown> {
  try {
    await runClaimedJob(core, seq, runner, { shouldStop });
    return undefined;
  } catch (err) {
    if (storageFaultOf(err)) return err;
    // A lock held a while by another process is retried on the next pass; anything else would fail again.
    if (!isBusy(err)) process.stderr.write(`tel: job ${seq} stopped: ${(err as Error)?.message ?? String(err)}\n`);
    try {
      if (isBusy(err)) releaseJob(core, seq, runner);
      else failJob(core, seq, runner, String((err as Error)?.message ?? err));
    } catch {
      // Still locked: the job stays claimed and is recovered once stalled.
    }
    return undefined;
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
