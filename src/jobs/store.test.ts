import { beforeEach, describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { createAccount } from '../modules/accounts/service.js';
import { createResource } from '../modules/resources/service.js';
import { claimJob, runClaimedJob } from './run.js';
import { createJob, findJobById, jobDetail, jobErrors, listJobs, type JobRow } from './store.js';

describe('reading number jobs', () => {
  const env = freshCoreEachTest('job-read');
  let accountId: string;
  let resourceId: string;
  beforeEach(() => {
    accountId = createAccount(env.core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(env.core, { accountId }, { name: 'Carrier', gateways: [] }).id;
  });
  const newJob = (numbers: string[], resource = resourceId, name?: string) => createJob(env.core, { accountId, resourceId: resource, numbers, name });

  it('lists every job with no filter, and pages from a start key in either order', () => {
    const jobs = [newJob([]), newJob([]), newJob([])];
    const ids = (rows: JobRow[]) => rows.map((j) => j.id);
    expect(ids(listJobs(env.core).items)).toEqual(jobs.map((j) => j.id));
    expect(ids(listJobs(env.core, { startKey: jobs[1].seq }).items)).toEqual([jobs[1].id, jobs[2].id]);
    expect(ids(listJobs(env.core, { startKey: jobs[1].seq, descending: true }).items)).toEqual([jobs[1].id, jobs[0].id]);
  });

  it("a job's errors name each number once (a number given twice keeps one entry), at most as many as asked", async () => {
    const job = newJob(['bad-1', 'bad-2', 'bad-1', 'bad-3'], 'no-such-resource');
    await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!);
    const done = findJobById(env.core, job.id)!;
    const numbers = (limit?: number) => [...jobErrors(env.core, done, limit)].flat().map((e) => e.number);
    expect(numbers()).toEqual(['bad-1', 'bad-2', 'bad-3']);
    expect(numbers(2)).toEqual(['bad-1', 'bad-2']);
    expect(numbers(1)).toEqual(['bad-1']);
  });

  it("a job's detail has no name when it was given none, and its name when it was", () => {
    expect(jobDetail(env.core, newJob([]))).not.toHaveProperty('name');
    expect(jobDetail(env.core, newJob([], resourceId, 'Spring batch'))).toMatchObject({ name: 'Spring batch' });
  });

  it("a job's detail over ranges of successes side by side, and of errors side by side, is one object with each success once", async () => {
    // ranges of 200 positions: two of successes, two all errors, then successes again
    const numbers = Array.from({ length: 850 }, (_, i) => (i >= 400 && i < 800 ? `bad-${i}` : `+1303555${String(i).padStart(4, '0')}`));
    const job = newJob(numbers);
    await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!);
    const detail = jobDetail(env.core, findJobById(env.core, job.id)!);
    expect(Object.keys(detail.successes as object)).toEqual(numbers.filter((n) => n.startsWith('+')));
    expect(Object.keys(detail.errors as object)).toEqual(numbers.filter((n) => n.startsWith('bad')));
  });
});
