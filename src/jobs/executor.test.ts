import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { createAccount } from '../modules/accounts/service.js';
import { createResource } from '../modules/resources/service.js';
import { drainJobs, JobExecutor, jobThreadOf, kickJobs } from './executor.js';
import { claimJob } from './run.js';
import { createJob, findJobById, jobDetail, type JobRow } from './store.js';

/**
 * The executor's passes as the job thread runs them (`drainJobs`), here in the test's process over
 * a database of its own: what a user sees is each job's row and detail.
 */
describe('number-job executor passes (drainJobs)', () => {
  const env = freshCoreEachTest('executor');
  let accountId: string;
  let resourceId: string;
  let stderr: string[];
  beforeEach(() => {
    accountId = createAccount(env.core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(env.core, { accountId }, { name: 'Carrier', gateways: [] }).id;
    env.core.config.set('api.resources', { job_batch_size: 2 });
    stderr = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
  });
  afterEach(() => void vi.restoreAllMocks());

  const numbersFrom = (from: number, n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);
  const newJob = (numbers: string[]) => createJob(env.core, { accountId, resourceId, numbers });
  const row = (job: JobRow) => findJobById(env.core, job.id)!;
  const never = () => false;
  /** Writes that grow the file fail from here as on a full disk (SQLITE_FULL), until `roomAgain`. */
  const fillDisk = () => {
    const { page_count } = env.core.db.prepare('PRAGMA page_count').get() as { page_count: number };
    env.core.db.exec(`PRAGMA max_page_count = ${page_count}`);
  };
  const roomAgain = () => env.core.db.exec('PRAGMA max_page_count = 1073741823');
  /** Each number added to the inventory from here throws `err` (as SQLite would hand it on). */
  const failInsertsWith = (err: unknown) => {
    env.core.db.function('tel_test_fail', () => {
      throw err;
    });
    env.core.db.exec('CREATE TEMP TRIGGER tel_test_fail BEFORE INSERT ON main.phone_numbers BEGIN SELECT tel_test_fail(); END');
  };

  it('runs every pending job in order, each to complete with its counts, telling of each claim', async () => {
    const a = newJob(numbersFrom(0, 5));
    const b = newJob([...numbersFrom(10, 2), 'not-a-number']);
    const claims: [number, string][] = [];
    expect(await drainJobs(env.core, undefined, never, (seq, runner) => claims.push([seq, runner]))).toEqual({});
    expect(row(a)).toMatchObject({ status: 'complete', processed: 5, successes: 5, failures: 0, runner: null, recoveries: 0 });
    expect(row(b)).toMatchObject({ status: 'complete', processed: 3, successes: 2, failures: 1, runner: null });
    expect(claims.map(([seq]) => seq)).toEqual([a.seq, b.seq]);
    expect(claims.every(([, runner]) => typeof runner === 'string' && runner.length > 0)).toBe(true);
    // without anyone to tell, the same
    const c = newJob(numbersFrom(20, 1));
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(c)).toMatchObject({ status: 'complete', successes: 1 });
    expect(stderr).toEqual([]);
  });

  it('a job another executor claimed meanwhile is left to it: not run, not told of', async () => {
    const a = newJob(numbersFrom(0, 2));
    const b = newJob(numbersFrom(10, 2));
    let theirs: string | undefined;
    const claims: [number, string][] = [];
    await drainJobs(env.core, undefined, never, (seq, runner) => {
      claims.push([seq, runner]);
      theirs ??= claimJob(env.core, b.seq);
    });
    expect(theirs).toBeDefined();
    expect(claims.map(([seq]) => seq)).toEqual([a.seq]);
    expect(row(a)).toMatchObject({ status: 'complete', successes: 2 });
    expect(row(b)).toMatchObject({ status: 'running', runner: theirs, processed: 0 });
  });

  it('asked to stop, a pass takes no job; asked during a job, it releases that job at a batch boundary and takes no other', async () => {
    const a = newJob(numbersFrom(0, 6));
    const b = newJob(numbersFrom(10, 2));
    expect(await drainJobs(env.core, undefined, () => true)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'pending', runner: null, started: null, processed: 0 });

    const stopAfterOneBatch = () => row(a).processed > 0;
    expect(await drainJobs(env.core, undefined, stopAfterOneBatch)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'running', runner: null, processed: 2, successes: 2 });
    expect(row(b)).toMatchObject({ status: 'pending', processed: 0 });
    // released, so the next pass resumes it at once (no recovery wait) where it stopped
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'complete', processed: 6, successes: 6, failures: 0 });
    expect(row(b)).toMatchObject({ status: 'complete', successes: 2 });
  });

  it('a full disk stops the pass: the job is answered held with the fault, kept claimed, and resumed first once writes work', async () => {
    const a = newJob(numbersFrom(0, 400));
    const b = newJob(numbersFrom(1000, 2));
    fillDisk();
    const out = await drainJobs(env.core, undefined, never);
    expect(out.fault).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 13 });
    const held = out.held!;
    expect(held).toEqual({ seq: a.seq, runner: expect.any(String) });
    const stalled = row(a);
    expect(stalled).toMatchObject({ status: 'running', runner: held.runner, failures: 0 });
    expect(stalled.processed).toBeLessThan(400);
    expect(row(b)).toMatchObject({ status: 'pending', runner: null });

    // still full: resuming it answers it held again, and no other job is taken
    const again = await drainJobs(env.core, undefined, never, undefined, held);
    expect(again).toEqual({ held, fault: expect.objectContaining({ errcode: 13 }) });
    expect(row(b)).toMatchObject({ status: 'pending', runner: null });

    roomAgain();
    const claims: number[] = [];
    expect(await drainJobs(env.core, undefined, never, (seq) => claims.push(seq), held)).toEqual({});
    expect(claims).toEqual([a.seq, b.seq]);
    expect(row(a)).toMatchObject({ status: 'complete', processed: 400, successes: 400, failures: 0, recoveries: 0, runner: null });
    expect(row(b)).toMatchObject({ status: 'complete', successes: 2 });
    // held job resumed without a listener: the same
    const c = newJob(numbersFrom(2000, 2));
    const runner = claimJob(env.core, c.seq)!;
    expect(await drainJobs(env.core, undefined, never, undefined, { seq: c.seq, runner })).toEqual({});
    expect(row(c)).toMatchObject({ status: 'complete', successes: 2 });
  });

  it('a full disk met by a job taken in the pass answers that job held', async () => {
    const a = newJob(numbersFrom(0, 2));
    const b = newJob(numbersFrom(10, 400));
    const c = newJob(numbersFrom(1000, 2));
    const out = await drainJobs(env.core, undefined, never, (seq) => {
      if (seq === b.seq) fillDisk();
    });
    expect(row(a)).toMatchObject({ status: 'complete', successes: 2 });
    expect(out).toEqual({ held: { seq: b.seq, runner: row(b).runner }, fault: expect.objectContaining({ errcode: 13 }) });
    expect(row(b).status).toBe('running');
    expect(row(c)).toMatchObject({ status: 'pending', runner: null });
  });

  it('a job that meets an error it cannot get past is failed with that error as its reason, and the pass goes on', async () => {
    const a = newJob(numbersFrom(0, 3));
    const b = newJob([]);
    failInsertsWith(new Error('boom'));
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'failed', error: 'boom', runner: null, processed: 0 });
    expect(jobDetail(env.core, row(a))).toMatchObject({ status: 'failed', reason: 'boom' });
    expect(row(b)).toMatchObject({ status: 'complete', total: 0 });
    expect(stderr).toEqual([`tel: job ${a.seq} stopped: boom\n`]);
  });

  it('a thrown value that is not an Error fails the job with its text', async () => {
    const a = newJob(numbersFrom(0, 1));
    failInsertsWith('not an error');
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'failed', error: 'not an error' });
    expect(stderr).toEqual([`tel: job ${a.seq} stopped: not an error\n`]);
  });

  it("another process's lock releases the job untouched, for the next pass, without a word", async () => {
    const a = newJob(numbersFrom(0, 3));
    failInsertsWith(Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 }));
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'running', runner: null, processed: 0, error: null });
    expect(stderr).toEqual([]);
    env.core.db.exec('DROP TRIGGER tel_test_fail');
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'complete', successes: 3 });
  });

  it('a stalled job (not modified since staleBefore) is taken over on a recovery pass only, counted as a recovery', async () => {
    const a = newJob(numbersFrom(0, 3));
    const gone = claimJob(env.core, a.seq)!;
    expect(await drainJobs(env.core, undefined, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'running', runner: gone, processed: 0 });
    expect(await drainJobs(env.core, Date.now() + 1, never)).toEqual({});
    expect(row(a)).toMatchObject({ status: 'complete', successes: 3, recoveries: 1, runner: null });
  });
});

describe('the server executor, running jobs in its own process', () => {
  const env = freshCoreEachTest('executor-serve');
  let accountId: string;
  let resourceId: string;
  let executor: JobExecutor | undefined;
  beforeEach(() => {
    accountId = createAccount(env.core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(env.core, { accountId }, { name: 'Carrier', gateways: [] }).id;
  });
  afterEach(async () => {
    await executor?.stop();
    executor = undefined;
    vi.restoreAllMocks();
  });

  const numbersFrom = (from: number, n: number) => Array.from({ length: n }, (_, i) => `+1628555${String(from + i).padStart(4, '0')}`);
  const newJob = (numbers: string[]) => createJob(env.core, { accountId, resourceId, numbers });
  const row = (job: JobRow) => findJobById(env.core, job.id)!;
  /** An executor whose thread is out of use: its passes run here. */
  const startHere = () => {
    executor = new JobExecutor(env.core);
    executor.thread.usable = false;
    return executor.start();
  };
  async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
    for (const start = Date.now(); Date.now() - start < ms; await new Promise((r) => setTimeout(r, 5))) if (ok()) return;
    throw new Error(`timed out waiting for ${what}`);
  }

  it('a job kicked while a pass runs is taken right after it, not at the next poll', async () => {
    env.core.config.set('api.resources', { job_batch_size: 1, job_batch_pause_ms: 10, job_poll_interval_ms: 60_000 });
    const a = newJob(numbersFrom(0, 5));
    startHere();
    await until('the first job under way', () => row(a).processed > 0);
    const b = newJob(numbersFrom(10, 1));
    kickJobs(env.core);
    await until('the second job done', () => row(b).status === 'complete', 2000);
    expect(row(a)).toMatchObject({ status: 'complete', successes: 5 });
  });

  it('stopping finishes the batch in flight and releases the job, for any executor to resume at once', async () => {
    env.core.config.set('api.resources', { job_batch_size: 1, job_batch_pause_ms: 20 });
    const a = newJob(numbersFrom(0, 50));
    startHere();
    await until('the job under way', () => row(a).processed > 0);
    await executor!.stop();
    executor = undefined;
    const stopped = row(a);
    expect(stopped).toMatchObject({ status: 'running', runner: null });
    expect(stopped.processed).toBeLessThan(50);
  });

  it('a job held by a full disk is released when the server stops', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    env.core.config.set('api.resources', { job_batch_size: 2 });
    const a = newJob(numbersFrom(0, 400));
    const { page_count } = env.core.db.prepare('PRAGMA page_count').get() as { page_count: number };
    env.core.db.exec(`PRAGMA max_page_count = ${page_count}`);
    startHere();
    await until('the job held', () => row(a).status === 'running' && row(a).runner !== null);
    await new Promise((r) => setTimeout(r, 20));
    expect(row(a).runner).not.toBeNull();
    await executor!.stop();
    executor = undefined;
    expect(row(a)).toMatchObject({ status: 'running', runner: null });
  });

  it("the job thread is that of this process's executor while it is usable, and none without one", () => {
    expect(jobThreadOf(env.core)).toBeUndefined();
    executor = new JobExecutor(env.core).start();
    expect(jobThreadOf(env.core)).toBe(executor.thread);
    executor.thread.usable = false;
    expect(jobThreadOf(env.core)).toBeUndefined();
  });
});
