import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../core.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { createResource } from '../modules/resources/service.js';
import { runTel, TEL_BIN } from '../../test/helpers/cli.js';
import { httpRequest, tempDir } from '../../test/helpers/server.js';

interface Served {
  url: string;
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts the real bundled `tel serve` on the database in a child process. */
function serve(db: string): Promise<Served> {
  const child = spawn(process.execPath, [TEL_BIN, 'serve', '--db', db, '--port', '0']);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tel serve did not start: ${err}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /tel listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child, exited, stderr: () => err });
      }
    });
    child.on('exit', () => reject(new Error(`tel serve exited: ${err}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface JobState {
  status: string;
  processed: number;
  successes: number;
  failures: number;
  runner: string | null;
  recoveries: number;
  total: number;
}

describe('job recovery with a real server process', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'tel.db');
  let apiKey: string;
  let accountId: string;
  let resourceId: string;
  let reader: DatabaseSync;
  const running: Served[] = [];

  const job = (id: string) =>
    reader.prepare('SELECT status, processed, successes, failures, runner, recoveries, total FROM resource_jobs WHERE id = ?').get(id) as unknown as JobState;

  async function token(url: string): Promise<string> {
    const r = await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } });
    return r.body.auth_token;
  }

  async function waitFor(what: string, ok: () => boolean, ms: number): Promise<void> {
    for (let waited = 0; waited < ms; waited += 10) {
      if (ok()) return;
      await sleep(10);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  beforeAll(() => {
    const core = openCore(db);
    const master = initDatabase(core, { account: 'Lab', username: 'admin', password: 'secret-pass' });
    apiKey = master.api_key;
    accountId = master.account_id;
    resourceId = createResource(core, { accountId }, { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] }).id;
    // Small batches with pauses make a 12,000-number job last long enough to be killed in the middle.
    core.config.set('api.resources', {
      job_recovery_threshold_s: 1,
      job_recover_timeout_s: 1,
      job_batch_size: 200,
      job_batch_pause_ms: 10,
      job_poll_interval_ms: 100,
    });
    closeCore(core);
    reader = new DatabaseSync(db, { readOnly: true, timeout: 5000 });
  });
  afterAll(async () => {
    for (const s of running) {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
      await s.exited;
    }
    reader.close();
    tmp.cleanup();
  });

  it('SIGKILL in the middle of a job, restart: every number is added exactly once', async () => {
    const valid = Array.from({ length: 12_000 }, (_, i) => `+1646${String(2_000_000 + i)}`);
    const numbers = [...valid];
    // Errors both before and after the kill point: they must be recorded once each too.
    numbers.splice(10, 0, 'bogus-1');
    numbers.splice(500, 0, valid[3]);
    numbers.splice(9_000, 0, 'bogus-2', valid[8_000]);
    const first = await serve(db);
    running.push(first);
    const r = await httpRequest(first.url, 'PUT', `/v2/accounts/${accountId}/resources/jobs`, {
      token: await token(first.url),
      data: { numbers, resource_id: resourceId },
    });
    expect(r.status).toBe(201);
    const id = r.body.data.id as string;

    await waitFor('the job to be under way', () => (job(id)?.processed ?? 0) >= 3000, 15_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const killed = job(id);
    expect(killed.status).toBe('running');
    expect(killed.runner).not.toBeNull();
    expect(killed.processed).toBeGreaterThan(0);
    expect(killed.processed).toBeLessThan(numbers.length);
    expect(killed.processed % 200).toBe(0);

    // The new server finds the job stalled (not modified for 1 s) on a recovery pass and resumes it.
    const second = await serve(db);
    running.push(second);
    await waitFor('the job to complete', () => job(id).status === 'complete', 20_000);
    const done = job(id);
    expect(done).toMatchObject({ processed: numbers.length, successes: valid.length, failures: 4, runner: null });
    expect(done.recoveries).toBeGreaterThanOrEqual(1);

    // a job records its errors only (a success is a processed position without one): the four planned, once each
    const results = reader.prepare('SELECT r.idx FROM resource_job_results r JOIN resource_jobs j ON j.seq = r.job_seq WHERE j.id = ? ORDER BY r.idx').all(id) as { idx: number }[];
    expect(results.map((r) => r.idx)).toEqual([10, 500, 9_000, 9_001]);
    const stored = reader.prepare('SELECT number FROM phone_numbers WHERE account_id = ? ORDER BY number').all(accountId) as { number: string }[];
    expect(stored.map((s) => s.number)).toEqual([...valid].sort());

    const detail = await httpRequest(second.url, 'GET', `/v2/accounts/${accountId}/resources/jobs/${id}`, { token: await token(second.url) });
    expect(Object.keys(detail.body.data.successes)).toHaveLength(valid.length);
    // Only the planned errors: a number handled twice would show up here as number_exists.
    expect(detail.body.data.errors).toEqual({
      'bogus-1': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      'bogus-2': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      [valid[3]]: { reason: 'number_exists', message: `number ${valid[3]} already exists` },
      [valid[8_000]]: { reason: 'number_exists', message: `number ${valid[8_000]} already exists` },
    });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  /** A server running a job of `numbers`, at least 2,000 of them done. */
  async function startUnderWay(numbers: string[]) {
    const first = await serve(db);
    running.push(first);
    const r = await httpRequest(first.url, 'PUT', `/v2/accounts/${accountId}/resources/jobs`, {
      token: await token(first.url),
      data: { numbers, resource_id: resourceId },
    });
    const id = r.body.data.id as string;
    await waitFor('the job to be under way', () => (job(id)?.processed ?? 0) >= 2000, 15_000);
    return { first, id };
  }

  it('SIGTERM in the middle of a job releases it: the next server resumes at once, without waiting for the threshold', async () => {
    const w = new DatabaseSync(db, { timeout: 5000 });
    w.prepare("UPDATE system_configs SET doc = json_set(doc, '$.default.job_recovery_threshold_s', 3600) WHERE category = 'api.resources'").run();
    w.close();
    const numbers = Array.from({ length: 12_000 }, (_, i) => `+1718${String(3_000_000 + i)}`);
    const { first, id } = await startUnderWay(numbers);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const released = job(id);
    expect(released).toMatchObject({ status: 'running', runner: null });
    expect(released.processed).toBeLessThan(numbers.length);

    const second = await serve(db);
    running.push(second);
    await waitFor('the job to complete', () => job(id).status === 'complete', 20_000);
    expect(job(id)).toMatchObject({ successes: numbers.length, failures: 0 });
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('tel jobs run takes over a job whose server was killed at once (its pid is gone), adding each number once', async () => {
    const numbers = Array.from({ length: 12_000 }, (_, i) => `+1929${String(4_000_000 + i)}`);
    const { first, id } = await startUnderWay(numbers);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(job(id).runner).not.toBeNull();
    // The threshold is an hour now (previous test): only the dead pid lets the CLI take it.
    const run = await runTel(['jobs', 'run', '--db', db, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ id, status: 'complete', successes: numbers.length, failures: 0 })]);
    expect(job(id)).toMatchObject({ processed: numbers.length, successes: numbers.length, failures: 0, runner: null });
  });
});
