import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { tempDir } from '../../test/helpers/server.js';
import { closeCore, openCore } from '../core.js';
import type { Core } from '../core-type.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { createResource } from '../modules/resources/service.js';
import { announceServer, retireWorker, withdrawServer } from '../store/presence.js';
import { followJob, runJobHere, runnableJobs, type FollowOptions } from './follow.js';
import { claimJob, releaseJob, runClaimedJob } from './run.js';
import { createJob, findJobBySeq, type JobRow } from './store.js';

const SERVER_TAKES_IT = 'A running tel serve on this database executes the job.';
const NO_SERVER = 'No server runs on this database: executing the job here.';
const NOBODY_HAD_IT = 'Executing the job here (no executor had it).';
const DAY = 86_400_000;

describe('following a job: who executes it, and what the follower reports', () => {
  // one database for these tests: each follows a job of its own
  const tmp = tempDir('tel-follow-');
  const env = {} as { core: Core };
  let accountId: string;
  let resourceId: string;
  let next = 0;
  beforeAll(() => {
    env.core = openCore(join(tmp.dir, 'follow.db'));
    accountId = initDatabase(env.core, { account: 'Lab', username: 'admin', password: 'secret-pass' }).account_id;
    resourceId = createResource(env.core, { accountId }, { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] }).id;
  });
  afterEach(() => {
    vi.useRealTimers();
    withdrawServer(env.core.db);
  });
  afterAll(() => {
    closeCore(env.core);
    tmp.cleanup();
  });

  /** A pending job of `count` new numbers, executed `batch` numbers at a time. */
  function pendingJob(count: number, batch = 2, pauseMs = 0): JobRow {
    env.core.config.set('api.resources', { job_batch_size: batch, job_batch_pause_ms: pauseMs });
    const numbers = Array.from({ length: count }, () => `+1415${String(2_000_000 + next++)}`);
    return createJob(env.core, { accountId, resourceId, numbers });
  }

  /** What a follower was told: each progress snapshot (status and processed) and each notice, in order. */
  function recorder(over: Partial<FollowOptions> = {}) {
    const progress: string[] = [];
    const notices: string[] = [];
    const opts: FollowOptions = {
      pickupTimeoutMs: 60_000,
      pollMs: 5,
      maxWaitMs: 2000,
      onProgress: (job) => progress.push(`${job.status} ${job.processed}`),
      onNotice: (text) => notices.push(text),
      ...over,
    };
    return { progress, notices, opts };
  }

  const row = (seq: number) => findJobBySeq(env.core, seq)!;

  it('with no server on the database, the follower executes the job at once and says so', async () => {
    const job = pendingJob(5);
    const { progress, notices, opts } = recorder();
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete', processed: 5, successes: 5, failures: 0 } });
    expect(notices).toEqual([NO_SERVER]);
    expect(progress.slice(0, 5)).toEqual(['pending 0', 'running 2', 'running 4', 'running 5', 'complete 5']);
    expect(progress.at(-1)).toBe('complete 5');
  });

  it('with a live server, the job is left to it until the pickup timeout, then executed here; the server is named once', async () => {
    const job = pendingJob(3);
    announceServer(env.core.db);
    const started = Date.now();
    const at: number[] = [];
    const { progress, notices, opts } = recorder({ pickupTimeoutMs: 150, onNotice: (text) => (notices.push(text), at.push(Date.now() - started)) });
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete', successes: 3 } });
    expect(notices).toEqual([SERVER_TAKES_IT, NOBODY_HAD_IT]);
    expect(at[1]).toBeGreaterThanOrEqual(150);
    // the job waited, reported once while it did
    expect(progress.filter((p) => p === 'pending 0')).toHaveLength(1);
    expect(progress[0]).toBe('pending 0');
  });

  it('with a live server and no pickup timeout, the job is executed here at once, the server not named', async () => {
    const job = pendingJob(3);
    announceServer(env.core.db);
    // the clock stands still: "no timeout" must not depend on a millisecond passing
    vi.useFakeTimers({ toFake: ['Date'] });
    const { notices, opts } = recorder({ pickupTimeoutMs: 0 });
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete' } });
    expect(notices).toEqual([NOBODY_HAD_IT]);
  });

  it('a server that takes the job: the follower only follows it, each step once, to the end', async () => {
    const job = pendingJob(5, 2, 15);
    announceServer(env.core.db);
    let server: Promise<unknown> | undefined;
    const { progress, notices, opts } = recorder({
      onNotice: (text) => {
        notices.push(text);
        // the server's executor picks the job up a little later, as after its poll
        setTimeout(() => (server = runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!)), 20);
      },
    });
    const result = await followJob(env.core, job.seq, opts);
    expect(await server).toBe('complete');
    expect(result).toMatchObject({ ranHere: false, stopped: false, job: { status: 'complete', processed: 5, successes: 5 } });
    expect(notices).toEqual([SERVER_TAKES_IT]);
    expect(progress[0]).toBe('pending 0');
    expect(progress.at(-1)).toBe('complete 5');
    // a snapshot is reported when the job moved on, or finished (here after its last batch was seen)
    const processed = progress.map((p) => Number(p.split(' ')[1]));
    expect(processed.slice(0, -1).every((n, i) => i === 0 || n > processed[i - 1])).toBe(true);
  });

  it('an executor that takes the job between the follower reading it and claiming it keeps it: it runs once, not here', async () => {
    const job = pendingJob(4);
    let other: Promise<unknown> | undefined;
    const { progress, notices, opts } = recorder({
      onProgress: (j) => {
        progress.push(`${j.status} ${j.processed}`);
        other ??= runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!);
      },
    });
    const result = await followJob(env.core, job.seq, opts);
    expect(await other).toBe('complete');
    expect(result).toMatchObject({ ranHere: false, stopped: false, job: { status: 'complete', successes: 4, failures: 0, recoveries: 0 } });
    expect(notices).toEqual([]);
  });

  it('a job released part-way (an interrupted run) is resumed here from where it stopped', async () => {
    const job = pendingJob(4, 1);
    let checks = 0;
    expect(await runClaimedJob(env.core, job.seq, claimJob(env.core, job.seq)!, { shouldStop: () => checks++ > 0 })).toBe('stopped');
    expect(row(job.seq)).toMatchObject({ status: 'running', runner: null, processed: 1 });
    const { progress, notices, opts } = recorder();
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete', processed: 4, successes: 4, recoveries: 1 } });
    expect(notices).toEqual([NOBODY_HAD_IT]);
    expect(progress.slice(0, 5)).toEqual(['running 1', 'running 2', 'running 3', 'running 4', 'complete 4']);
  });

  it('a job whose runner is gone (a killed server) is taken over at once, before it counts as stalled', async () => {
    const job = pendingJob(3);
    const dead = claimJob(env.core, job.seq)!;
    retireWorker(dead);
    const { notices, opts } = recorder();
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete', successes: 3, recoveries: 1 } });
    expect(notices).toEqual([NOBODY_HAD_IT]);
  });

  it('a job its live runner has not moved for the recovery threshold is taken over', async () => {
    const job = pendingJob(3);
    claimJob(env.core, job.seq);
    env.core.db.prepare('UPDATE resource_jobs SET modified = ? WHERE seq = ?').run(Date.now() - 3_600_000 - 1000, job.seq);
    const { notices, opts } = recorder();
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: false, job: { status: 'complete', successes: 3, recoveries: 1 } });
    expect(notices).toEqual([NOBODY_HAD_IT]);
  });

  it('a job a live runner holds is left to it; the follower gives up after its longest wait, the job untouched', async () => {
    const job = pendingJob(3);
    const runner = claimJob(env.core, job.seq)!;
    const { progress, notices, opts } = recorder({ pollMs: 10, maxWaitMs: 50 });
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: false, stopped: true, job: { status: 'running', runner, processed: 0, recoveries: 0 } });
    expect(notices).toEqual([]);
    expect(progress).toEqual(['running 0']);
  });

  it('unbounded, a follower waits up to a week (a poll at a time) for the executor that holds the job', async () => {
    const job = pendingJob(3);
    const runner = claimJob(env.core, job.seq)!;
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    let reads = 0;
    const { opts } = recorder({
      pollMs: DAY,
      maxWaitMs: undefined,
      // the executor holding it keeps it fresh, as one making progress does
      shouldStop: () => {
        reads++;
        env.core.db.prepare('UPDATE resource_jobs SET modified = ? WHERE seq = ?').run(Date.now(), job.seq);
        return false;
      },
    });
    let result: Awaited<ReturnType<typeof followJob>> | undefined;
    void followJob(env.core, job.seq, opts).then((r) => (result = r));
    await vi.advanceTimersByTimeAsync(8 * DAY - 1);
    expect(result).toBeUndefined();
    expect(reads).toBe(8);
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toMatchObject({ ranHere: false, stopped: true, job: { status: 'running', runner } });
    expect(reads).toBe(8);
  });

  it('a stop asked before the job is taken leaves it pending, executed by nobody', async () => {
    const job = pendingJob(3);
    const { notices, opts } = recorder({ shouldStop: () => true });
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: false, stopped: true, job: { status: 'pending', processed: 0, runner: null } });
    expect(notices).toEqual([]);
  });

  it('a stop asked while the job runs here releases it where it stands, for anyone to resume', async () => {
    const job = pendingJob(6);
    let stop = false;
    const { progress, opts } = recorder({
      onProgress: (j) => {
        progress.push(`${j.status} ${j.processed}`);
        stop ||= j.processed > 0;
      },
      shouldStop: () => stop,
    });
    const result = await followJob(env.core, job.seq, opts);
    expect(result).toMatchObject({ ranHere: true, stopped: true, job: { status: 'running', runner: null, processed: 2, successes: 2 } });
    expect(progress).toEqual(['pending 0', 'running 2']);
  });

  it('a job deleted meanwhile (its account was) ends the follow with an error naming it', async () => {
    const job = pendingJob(2);
    env.core.db.prepare('DELETE FROM resource_jobs WHERE seq = ?').run(job.seq);
    const { opts } = recorder();
    await expect(followJob(env.core, job.seq, opts)).rejects.toThrow(`job ${job.seq} no longer exists (its account was deleted?)`);
  });
});

describe('tel jobs run: which jobs it takes, and taking one', () => {
  const env = freshCoreEachTest('jobs-run');

  function jobs(count: number): JobRow[] {
    const { core } = env;
    const accountId = initDatabase(core, { account: 'Lab', username: 'admin', password: 'secret-pass' }).account_id;
    const resourceId = createResource(core, { accountId }, { name: 'Carrier', gateways: [] }).id;
    return Array.from({ length: count }, (_, j) => createJob(core, { accountId, resourceId, numbers: [`+1303555${String(1000 + j)}`, `+1303556${String(1000 + j)}`] }));
  }
  const row = (seq: number) => findJobBySeq(env.core, seq)!;

  it('pending, released, stalled and orphaned jobs, in order; not those a live runner holds, nor finished ones', async () => {
    const [orphaned, live, stalled, pending, released, done] = jobs(6);
    retireWorker(claimJob(env.core, orphaned.seq)!);
    claimJob(env.core, live.seq);
    claimJob(env.core, stalled.seq);
    env.core.db.prepare('UPDATE resource_jobs SET modified = ? WHERE seq = ?').run(Date.now() - 3_600_000 - 1000, stalled.seq);
    releaseJob(env.core, released.seq, claimJob(env.core, released.seq)!);
    expect(await runJobHere(env.core, done.seq, {})).toBe('complete');
    expect(runnableJobs(env.core)).toEqual([orphaned.seq, stalled.seq, pending.seq, released.seq]);
  });

  it("runs a job here, a dead runner's too; a job a live runner holds, or none, is left: undefined", async () => {
    const [pending, orphaned, live] = jobs(3);
    const seen: string[] = [];
    expect(await runJobHere(env.core, pending.seq, { onProgress: (j) => seen.push(`${j.status} ${j.processed}`) })).toBe('complete');
    expect(seen).toEqual(['running 2', 'complete 2']);
    retireWorker(claimJob(env.core, orphaned.seq)!);
    expect(await runJobHere(env.core, orphaned.seq, {})).toBe('complete');
    expect(row(orphaned.seq)).toMatchObject({ status: 'complete', successes: 2, recoveries: 1 });
    const runner = claimJob(env.core, live.seq)!;
    expect(await runJobHere(env.core, live.seq, {})).toBeUndefined();
    expect(row(live.seq)).toMatchObject({ status: 'running', runner, processed: 0, recoveries: 0 });
    expect(await runJobHere(env.core, live.seq + 100, {})).toBeUndefined();
  });
});
