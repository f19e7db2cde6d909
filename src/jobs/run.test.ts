import { beforeEach, describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { createAccount } from '../modules/accounts/service.js';
import { createResource } from '../modules/resources/service.js';
import { claimJob, failJob, releaseJob, runClaimedJob } from './run.js';
import { jobSettings } from './settings.js';
import { createJob, findJobById, jobDetail, type JobRow } from './store.js';

/** A claimed job's run, batch by batch, as the executor and `tel jobs run` make it, over a database of its own. */
describe('running a claimed number job', () => {
  const env = freshCoreEachTest('job-run');
  let accountId: string;
  let resourceId: string;
  beforeEach(() => {
    accountId = createAccount(env.core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(env.core, { accountId }, { name: 'Carrier', gateways: [] }).id;
    env.core.config.set('api.resources', { job_batch_size: 2 });
  });

  const numbersFrom = (from: number, n: number) => Array.from({ length: n }, (_, i) => `+1212555${String(from + i).padStart(4, '0')}`);
  const newJob = (numbers: string[], resource = resourceId, name?: string) => createJob(env.core, { accountId, resourceId: resource, numbers, name });
  const row = (job: JobRow) => findJobById(env.core, job.id)!;
  const inventory = () => (env.core.db.prepare('SELECT number, resource_id FROM phone_numbers ORDER BY number').all() as { number: string; resource_id: string }[]);

  it('runs to complete a batch at a time, telling the progress of each batch and then the final row', async () => {
    const job = newJob(numbersFrom(0, 5));
    const runner = claimJob(env.core, job.seq)!;
    const seen: [string, number, number][] = [];
    expect(await runClaimedJob(env.core, job.seq, runner, { onProgress: (j) => seen.push([j.status, j.processed, j.successes]) })).toBe('complete');
    expect(seen).toEqual([
      ['running', 2, 2],
      ['running', 4, 4],
      ['running', 5, 5],
      ['complete', 5, 5],
    ]);
    expect(row(job)).toMatchObject({ status: 'complete', runner: null, error: null, failures: 0 });
    expect(inventory()).toEqual(numbersFrom(0, 5).map((number) => ({ number, resource_id: resourceId })));
    // no hooks at all: the same
    const other = newJob(numbersFrom(10, 3));
    expect(await runClaimedJob(env.core, other.seq, claimJob(env.core, other.seq)!)).toBe('complete');
    expect(row(other)).toMatchObject({ status: 'complete', processed: 3, successes: 3 });
  });

  it('a number already in the inventory, or given twice, is an error of its position; every other number is added once', async () => {
    const first = newJob(numbersFrom(0, 1));
    await runClaimedJob(env.core, first.seq, claimJob(env.core, first.seq)!);
    const [existing] = numbersFrom(0, 1);
    const [a, b] = numbersFrom(1, 2);
    // a twice in one batch, b twice across batches, and one not a number
    const job = newJob([a, a, existing, b, 'not-a-number', b]);
    expect(await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!)).toBe('complete');
    expect(row(job)).toMatchObject({ status: 'complete', processed: 6, successes: 2, failures: 4 });
    const detail = jobDetail(env.core, row(job));
    expect(Object.keys(detail.successes as object).sort()).toEqual([a, b]);
    expect(detail.errors).toEqual({
      [a]: { reason: 'number_exists', message: `number ${a} already exists` },
      [existing]: { reason: 'number_exists', message: `number ${existing} already exists` },
      [b]: { reason: 'number_exists', message: `number ${b} already exists` },
      'not-a-number': { reason: 'invalid_number', message: 'not a valid E.164 number' },
    });
    expect(inventory().map((r) => r.number)).toEqual([existing, a, b]);
  });

  it("a job of a resource that does not exist fails, each number an error naming the resource, none added", async () => {
    const job = newJob([...numbersFrom(0, 2), 'nope'], 'no-such-resource');
    const seen: string[] = [];
    expect(await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!, { onProgress: (j) => seen.push(j.status) })).toBe('failed');
    expect(seen).toEqual(['running', 'running', 'failed']);
    expect(row(job)).toMatchObject({ status: 'failed', error: 'unknown resource', processed: 3, successes: 0, failures: 3, runner: null });
    const unknown = { reason: 'unknown_resource', message: 'resource no-such-resource does not exist' };
    expect(jobDetail(env.core, row(job))).toMatchObject({
      status: 'failed',
      reason: 'unknown resource',
      successes: {},
      errors: { [numbersFrom(0, 1)[0]]: unknown, [numbersFrom(1, 1)[0]]: unknown, nope: unknown },
    });
    expect(inventory()).toEqual([]);
  });

  it('a run by a runner that does not hold the job, or of no job, is lost and changes nothing', async () => {
    const job = newJob(numbersFrom(0, 2));
    const runner = claimJob(env.core, job.seq)!;
    expect(await runClaimedJob(env.core, job.seq, 'someone-else')).toBe('lost');
    expect(await runClaimedJob(env.core, 999_999, runner)).toBe('lost');
    expect(row(job)).toMatchObject({ status: 'running', runner, processed: 0 });
    expect(inventory()).toEqual([]);
  });

  it('a job taken over by another runner mid-run is lost at the next batch: nothing more is added by the first', async () => {
    const job = newJob(numbersFrom(0, 6));
    const runner = claimJob(env.core, job.seq)!;
    let theirs: string | undefined;
    const seen: number[] = [];
    const outcome = await runClaimedJob(env.core, job.seq, runner, {
      onProgress: (j) => {
        seen.push(j.processed);
        // a recovery pass elsewhere finds it stalled
        theirs ??= claimJob(env.core, job.seq, Date.now() + 1);
      },
    });
    expect(outcome).toBe('lost');
    expect(seen).toEqual([2]);
    expect(row(job)).toMatchObject({ status: 'running', runner: theirs, processed: 2, recoveries: 1 });
    expect(inventory()).toHaveLength(2);
  });

  it('asked to stop, a run releases the job where its last batch ended', async () => {
    const job = newJob(numbersFrom(0, 6));
    const runner = claimJob(env.core, job.seq)!;
    let batches = 0;
    const outcome = await runClaimedJob(env.core, job.seq, runner, { onProgress: () => batches++, shouldStop: () => batches === 2 });
    expect(outcome).toBe('stopped');
    expect(row(job)).toMatchObject({ status: 'running', runner: null, processed: 4, successes: 4 });
    // released: claimed again at once, resumed where it stood
    const again = claimJob(env.core, job.seq)!;
    expect(await runClaimedJob(env.core, job.seq, again)).toBe('complete');
    expect(row(job)).toMatchObject({ status: 'complete', processed: 6, successes: 6, recoveries: 1 });
  });

  it('pauses job_batch_pause_ms after each batch', async () => {
    env.core.config.set('api.resources', { job_batch_size: 1, job_batch_pause_ms: 30 });
    const job = newJob(numbersFrom(0, 3));
    const started = performance.now();
    await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!, { settings: jobSettings(env.core) });
    expect(performance.now() - started).toBeGreaterThanOrEqual(85);
  });

  it("a job's row holds its progress, not its numbers: what each batch updates and a listing reads is as small for 20,000 numbers as for 2", async () => {
    /** The pages of the jobs' table (their rows, and any overflow of them), as SQLite's dbstat counts them. */
    const pages = () => (env.core.db.prepare("SELECT count(*) AS n FROM dbstat WHERE name = 'resource_jobs'").get() as { n: number }).n;
    const small = newJob(numbersFrom(0, 2));
    const before = pages();
    const big = newJob(Array.from({ length: 20_000 }, (_, i) => `+1${3_000_000_000 + i}`));
    // SQLite builds a whole row again at each update and reads through it to a later column: a
    // 100,000-number job's 1.5 MB list in its row made the job a sixth longer
    expect(pages()).toBe(before);
    env.core.config.set('api.resources', { job_batch_size: 5000 });
    expect(await runClaimedJob(env.core, big.seq, claimJob(env.core, big.seq)!)).toBe('complete');
    expect(row(big)).toMatchObject({ status: 'complete', processed: 20_000, successes: 20_000 });
    expect(await runClaimedJob(env.core, small.seq, claimJob(env.core, small.seq)!)).toBe('complete');
    expect(row(small)).toMatchObject({ status: 'complete', successes: 2 });
  });

  it('a job is claimed by one runner only: again once released, once stalled, or once its runner is known gone', () => {
    const job = newJob(numbersFrom(0, 1));
    const first = claimJob(env.core, job.seq)!;
    expect(first).toEqual(expect.any(String));
    expect(claimJob(env.core, job.seq)).toBeUndefined();
    expect(claimJob(env.core, job.seq, row(job).modified)).toBeUndefined();
    // not its runner: nothing happens
    releaseJob(env.core, job.seq, 'someone-else');
    expect(row(job).runner).toBe(first);
    const stale = claimJob(env.core, job.seq, row(job).modified + 1)!;
    expect(stale).toEqual(expect.any(String));
    expect(row(job)).toMatchObject({ runner: stale, recoveries: 1 });
    const afterDeath = claimJob(env.core, job.seq, undefined, stale)!;
    expect(row(job)).toMatchObject({ runner: afterDeath, recoveries: 2 });
    releaseJob(env.core, job.seq, afterDeath);
    expect(row(job)).toMatchObject({ status: 'running', runner: null });
    const released = claimJob(env.core, job.seq)!;
    expect(row(job)).toMatchObject({ runner: released, recoveries: 3 });
    // failed by its runner, with the reason the job's detail answers
    failJob(env.core, job.seq, released, 'disk on fire');
    expect(row(job)).toMatchObject({ status: 'failed', runner: null, error: 'disk on fire' });
    expect(jobDetail(env.core, row(job)).reason).toBe('disk on fire');
    expect(claimJob(env.core, job.seq, Date.now() + 1)).toBeUndefined();
  });
});
