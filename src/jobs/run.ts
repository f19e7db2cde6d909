import type { Core } from '../core-type.js';
import { transaction, stmt } from '../store/db.js';
import { insertNumbers, numbersPresent } from '../modules/numbers/service.js';
import { toE164 } from '../modules/numbers/normalize.js';
import { findJobResource } from '../modules/resources/service.js';
import { findJobBySeq, jobNumbers, type JobRow } from './store.js';
import { jobSettings, type JobSettings } from './settings.js';
import { newWorkerId } from '../store/presence.js';
import { setLongTimeout } from '../util/timers.js';

/** How a run of a claimed job ended. */
export type RunOutcome = 'complete' | 'failed' | 'stopped' | 'lost';

/** Hooks of one run: progress after each committed batch, and a stop request checked between batches. */
export interface RunHooks {
  onProgress?(job: JobRow): void;
  shouldStop?(): boolean;
  settings?: JobSettings;
}

/**
 * Claims a job for a new runner: a pending job, a running one whose runner let it go, one
 * not modified since `staleBefore` (unix ms), or one still held by `deadRunner` (a runner
 * known to be gone). One UPDATE decides, so two executors never hold the same job. Answers
 * the new runner token, or undefined when the job is taken.
 */
export function claimJob(core: Core, seq: number, staleBefore?: number, deadRunner?: string): string | undefined {
  const runner = newWorkerId();
  const now = Date.now();
  const res = stmt(core.db, `UPDATE resource_jobs SET status = 'running', runner = ?, started = COALESCE(started, ?), modified = ?,
         recoveries = recoveries + (CASE WHEN status = 'running' THEN 1 ELSE 0 END)
       WHERE seq = ? AND (status = 'pending' OR (status = 'running' AND (runner IS NULL OR modified < ? OR runner = ?)))`,
    )
    .run(runner, now, now, seq, staleBefore ?? -1, deadRunner ?? null);
  return res.changes > 0 ? runner : undefined;
}

/** Jobs an executor may take now: pending or released ones, and stalled ones when `staleBefore` is given. */
export function claimableJobs(core: Core, staleBefore?: number, limit = 100): number[] {
  const rows = stmt(core.db, `SELECT seq FROM resource_jobs
       WHERE status = 'pending' OR (status = 'running' AND (runner IS NULL OR modified < ?))
       ORDER BY seq LIMIT ?`,
    )
    .all(staleBefore ?? -1, limit) as { seq: number }[];
  return rows.map((r) => r.seq);
}

/** Lets a job go without finishing it, so any executor resumes it at once. */
export function releaseJob(core: Core, seq: number, runner: string): void {
  stmt(core.db, 'UPDATE resource_jobs SET runner = NULL, modified = ? WHERE seq = ? AND runner = ?').run(Date.now(), seq, runner);
}

function finishJob(core: Core, seq: number, runner: string, status: 'complete' | 'failed', error?: string): boolean {
  const res = stmt(core.db, 'UPDATE resource_jobs SET status = ?, runner = NULL, error = ?, modified = ? WHERE seq = ? AND runner = ?')
    .run(status, error ?? null, Date.now(), seq, runner);
  return res.changes > 0;
}

const pause = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setLongTimeout(resolve, ms) : setImmediate(resolve)));

/**
 * Executes a claimed job from where it stands, batch by batch: each transaction adds the
 * batch's numbers, records their results and moves the job's progress, so a run killed at
 * any point resumes exactly (nothing added twice, nothing skipped). Stops when the runner
 * loses the job (recovered by someone else) or `shouldStop` says so (the job is released).
 */
export async function runClaimedJob(core: Core, seq: number, runner: string, hooks: RunHooks = {}): Promise<RunOutcome> {
  const job = findJobBySeq(core, seq);
  if (!job || job.runner !== runner) return 'lost';
  const settings = hooks.settings ?? jobSettings(core);
  const numbers = jobNumbers(core, seq);
  const resource = findJobResource(core, job.account_id, job.resource_id);
  const db = core.db;
  const current = stmt(db, 'SELECT runner, processed FROM resource_jobs WHERE seq = ?');
  const result = stmt(db, 'INSERT INTO resource_job_results (job_seq, idx, number, reason, message) VALUES (?, ?, ?, ?, ?)');
  const progress = stmt(db, 'UPDATE resource_jobs SET processed = ?, successes = successes + ?, failures = failures + ?, modified = ? WHERE seq = ?',
  );
  const unknownResource = `resource ${job.resource_id} does not exist`;
  for (let guard = 0; guard <= numbers.length; guard++) {
    if (hooks.shouldStop?.()) {
      releaseJob(core, seq, runner);
      return 'stopped';
    }
    const step = transaction(db, () => {
      const cur = current.get(seq) as { runner: string | null; processed: number } | undefined;
      if (!cur || cur.runner !== runner) return 'lost' as const;
      if (cur.processed >= numbers.length) return 'done' as const;
      const now = Date.now();
      const end = Math.min(numbers.length, cur.processed + settings.batchSize);
      let bad = 0;
      const valid: [number, string][] = [];
      for (let i = cur.processed; i < end; i++) {
        const number = toE164(numbers[i]);
        if (!resource) {
          bad++;
          result.run(seq, i, number ?? null, 'unknown_resource', unknownResource);
        } else if (!number) {
          bad++;
          result.run(seq, i, null, 'invalid_number', 'not a valid E.164 number');
        } else valid.push([i, number]);
      }
      // a success is the absence of an error row (see jobDetailPieces): one write per number fewer
      const present = numbersPresent(db, valid.map(([, n]) => n));
      const added = new Set<string>();
      for (const [i, number] of valid) {
        if (present.has(number) || added.has(number)) {
          bad++;
          result.run(seq, i, number, 'number_exists', `number ${number} already exists`);
        } else added.add(number);
      }
      insertNumbers(db, [...added], { accountId: job.account_id, resourceId: job.resource_id, jobId: job.id, now });
      const ok = added.size;
      progress.run(end, ok, bad, now, seq);
      return 'batch' as const;
    });
    if (step === 'lost') return 'lost';
    if (step === 'done') break;
    const row = findJobBySeq(core, seq);
    if (row) hooks.onProgress?.(row);
    await pause(settings.batchPauseMs);
  }
  const status = resource ? 'complete' : 'failed';
  if (!finishJob(core, seq, runner, status, resource ? undefined : 'unknown resource')) return 'lost';
  const done = findJobBySeq(core, seq);
  if (done) hooks.onProgress?.(done);
  return status;
}

/** Marks a job failed after an error it cannot get past (kept apart from lock waits, which are retried). */
export function failJob(core: Core, seq: number, runner: string, reason: string): void {
  finishJob(core, seq, runner, 'failed', reason);
}
