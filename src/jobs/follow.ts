import type { Core } from '../core-type.js';
import { claimableJobs, claimJob, runClaimedJob, type RunOutcome } from './run.js';
import { jobSettings } from './settings.js';
import { liveServers, workerIsGone } from '../store/presence.js';
import { findJobBySeq, isFinished, type JobRow } from './store.js';

/** How a follower behaves while a job is not finished. */
export interface FollowOptions {
  /** with a live server, how long to wait for it to take the job before running it here */
  pickupTimeoutMs: number;
  /** how often the job row is read */
  pollMs: number;
  /** the longest a follower keeps going before giving up (bounded loop) */
  maxWaitMs?: number;
  onProgress(job: JobRow): void;
  /** one sentence about who runs the job */
  onNotice(text: string): void;
  shouldStop?(): boolean;
}

/** The end of a follow: the job as it stands, and whether this process executed part of it. */
export interface FollowResult {
  job: JobRow;
  ranHere: boolean;
  stopped: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Follows a job until it is finished, executing it in this process when nobody else does:
 * at once when no server runs on the database, after `pickupTimeoutMs` when one runs but
 * has not taken it, or when it stalls (a killed executor). Claims are atomic, so a server and
 * this process never both run it.
 */
export async function followJob(core: Core, seq: number, opts: FollowOptions): Promise<FollowResult> {
  const started = Date.now();
  const maxWait = opts.maxWaitMs ?? 7 * 24 * 3600 * 1000;
  let ranHere = false;
  let lastSeen = -1;
  let noticedServer = false;
  for (let i = 0; i <= Math.ceil(maxWait / opts.pollMs); i++) {
    const job = findJobBySeq(core, seq);
    if (!job) throw new Error(`job ${seq} no longer exists (its account was deleted?)`);
    if (job.processed !== lastSeen || isFinished(job.status)) {
      opts.onProgress(job);
      lastSeen = job.processed;
    }
    if (isFinished(job.status)) return { job, ranHere, stopped: false };
    if (opts.shouldStop?.()) return { job, ranHere, stopped: true };
    const now = Date.now();
    const settings = jobSettings(core);
    const servers = job.status === 'pending' ? liveServers(core.db) : 0;
    // A runner whose process is gone (a killed server) need not wait for the threshold here.
    const orphaned = job.status === 'running' && (job.runner === null || workerIsGone(job.runner));
    const stalled = now - job.modified > settings.recoverThresholdMs;
    const unattended = job.status === 'pending' && (servers === 0 || now - started >= opts.pickupTimeoutMs);
    if (job.status === 'pending' && servers > 0 && !noticedServer && !unattended) {
      opts.onNotice('A running tel serve on this database executes the job.');
      noticedServer = true;
    }
    if (unattended || orphaned || stalled) {
      const gone = job.runner && workerIsGone(job.runner) ? job.runner : undefined;
      const runner = claimJob(core, seq, now - settings.recoverThresholdMs, gone);
      if (runner) {
        opts.onNotice(
          unattended && servers === 0 ? 'No server runs on this database: executing the job here.' : 'Executing the job here (no executor had it).',
        );
        ranHere = true;
        const outcome: RunOutcome = await runClaimedJob(core, seq, runner, { onProgress: opts.onProgress, shouldStop: opts.shouldStop });
        if (outcome === 'stopped') return { job: findJobBySeq(core, seq) ?? job, ranHere, stopped: true };
        continue;
      }
    }
    await sleep(opts.pollMs);
  }
  return { job: findJobBySeq(core, seq)!, ranHere, stopped: true };
}

/** Jobs `tel jobs run` takes: pending, released, stalled (not modified for the threshold), and those of killed runners. */
export function runnableJobs(core: Core): number[] {
  const seqs = new Set(claimableJobs(core, Date.now() - jobSettings(core).recoverThresholdMs, 1000));
  const held = core.db.prepare("SELECT seq, runner FROM resource_jobs WHERE status = 'running' AND runner IS NOT NULL").all() as {
    seq: number;
    runner: string;
  }[];
  for (const h of held) if (workerIsGone(h.runner)) seqs.add(h.seq);
  return [...seqs].sort((a, b) => a - b);
}

/** Runs one job in this process if it can be claimed; answers the outcome, or undefined when taken. */
export async function runJobHere(
  core: Core,
  seq: number,
  hooks: { onProgress?(job: JobRow): void; shouldStop?(): boolean },
): Promise<RunOutcome | undefined> {
  const current = findJobBySeq(core, seq);
  const gone = current?.runner && workerIsGone(current.runner) ? current.runner : undefined;
  const runner = claimJob(core, seq, Date.now() - jobSettings(core).recoverThresholdMs, gone);
  if (!runner) return undefined;
  return runClaimedJob(core, seq, runner, hooks);
}
