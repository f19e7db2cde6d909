import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeCore, openCore, type Core } from '../core.js';
import { createAccount } from '../modules/accounts/service.js';
import { createResource } from '../modules/resources/service.js';
import { startTestServer, tempDir, type TestServer } from '../../test/helpers/server.js';
import { jobThreadOf } from './executor.js';
import { createJob, findJobById } from './store.js';
import { JobThread, serveJobThread } from './thread.js';

describe('number jobs run on a thread of their own', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv?.close());

  it("a 50,000-number job leaves the server's event loop mostly idle, its progress seen while it runs", async () => {
    const token = srv.adminToken;
    const base = `/v2/accounts/${srv.master.account_id}/resources`;
    const resource = await srv.request('PUT', base, { token, data: { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] } });
    const numbers = Array.from({ length: 50_000 }, (_, i) => `+1415${String(2_000_000 + i).padStart(7, '0')}`);
    const put = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resource.body.data.id } });
    expect(put.status).toBe(201);
    // from here the server only answers the polls: the batches are committed on the job thread.
    // What the event loop's thread spends is counted in CPU time: its share of the wall-clock time
    // (event-loop utilization) grows when other processes take the cores, as in a full test run.
    const cpuBefore = process.threadCpuUsage();
    const startedAt = performance.now();
    const seen: number[] = [];
    let job: { status: string; processed: number; successes: number };
    for (;;) {
      const list = await srv.request('GET', `${base}/jobs`, { token });
      job = list.body.data.find((j: { id: string }) => j.id === put.body.data.id);
      const row = srv.core.db.prepare('SELECT processed FROM resource_jobs WHERE id = ?').get(put.body.data.id) as { processed: number };
      seen.push(row.processed);
      if (job.status === 'complete' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cpu = process.threadCpuUsage(cpuBefore);
    const busy = (cpu.user + cpu.system) / 1000 / (performance.now() - startedAt);
    expect(job).toMatchObject({ status: 'complete', successes: 50_000 });
    // progress showed while the job ran, a committed batch at a time
    expect(seen.some((p) => p > 0 && p < 50_000)).toBe(true);
    // on the event loop, the batches would have kept it busy nearly all the while
    expect(busy).toBeLessThan(0.5);
  });

  it('a large job request is checked on the thread: its refusals are the answers a small one gets', async () => {
    const token = srv.adminToken;
    const base = `/v2/accounts/${srv.master.account_id}/resources`;
    const resource = await srv.request('PUT', base, { token, data: { name: 'Checked', gateways: [] } });
    const padding = Array.from({ length: 8000 }, (_, i) => `+1628${String(3_000_000 + i).padStart(7, '0')}`);
    const bad = (numbers: unknown[]) => ({ token, data: { numbers, resource_id: resource.body.data.id } });
    const small = await srv.request('PUT', `${base}/jobs`, bad(['+14155550100', '']));
    const large = await srv.request('PUT', `${base}/jobs`, bad([...padding, '']));
    expect(JSON.stringify(padding).length).toBeGreaterThan(64 * 1024);
    expect(small.status).toBe(400);
    expect(large.status).toBe(400);
    expect(Object.keys(large.body.data)).toEqual(Object.keys(small.body.data).map((k) => k.replace('.1', `.${padding.length}`)));
    const notJson = await srv.request('PUT', `${base}/jobs`, { token, body: `{"data":{"numbers":${JSON.stringify(padding)}` });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toBe('invalid json');
    // nothing was stored
    const jobs = await srv.request('GET', `${base}/jobs`, { token });
    expect(jobs.body.data.filter((j: { resource_id: string }) => j.resource_id === resource.body.data.id)).toEqual([]);
  });

  it("a job request's body moves to the thread rather than being copied on the event loop; a body sharing its memory is copied", async () => {
    const base = `/v2/accounts/${srv.master.account_id}/resources`;
    const resource = await srv.request('PUT', base, { token: srv.adminToken, data: { name: 'Moved', gateways: [] } });
    const thread = jobThreadOf(srv.core)!;
    const bodyOf = (from: number) =>
      JSON.stringify({ data: { numbers: Array.from({ length: 5000 }, (_, i) => `+1629${String(from + i).padStart(7, '0')}`), resource_id: resource.body.data.id } });
    // as the server reads a body of a known length: one buffer of its own
    const owned = Buffer.from(bodyOf(1_000_000));
    const created = JSON.parse((await thread.createJob({ accountId: srv.master.account_id, body: owned }))!);
    expect(findJobById(srv.core, created.id)).toMatchObject({ total: 5000, resource_id: resource.body.data.id });
    // its memory went with the message: nothing was copied, nothing is left here
    expect(owned.byteLength).toBe(0);
    // a view into a larger buffer cannot be moved without taking the rest: it is copied, and stays
    const text = bodyOf(2_000_000);
    const shared = Buffer.from(`xxxx${text}`).subarray(4);
    const again = JSON.parse((await thread.createJob({ accountId: srv.master.account_id, body: shared }))!);
    expect(findJobById(srv.core, again.id)).toMatchObject({ total: 5000 });
    expect(shared.toString()).toBe(text);
  });
});

describe('a job thread that fails', () => {
  let tmp: ReturnType<typeof tempDir>;
  let core: Core;
  let accountId: string;
  let resourceId: string;
  let stderr: string[];
  beforeEach(() => {
    tmp = tempDir('tel-job-thread-');
    core = openCore(join(tmp.dir, 'tel.db'));
    accountId = createAccount(core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(core, { accountId }, { name: 'Carrier', gateways: [] }).id;
    stderr = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    closeCore(core);
    tmp.cleanup();
  });

  it('one that cannot open the file is out of use: jobs are created and run by the server, which says so once', async () => {
    // the thread opens the file by its name: gone with its folder, it cannot
    rmSync(tmp.dir, { recursive: true, force: true });
    const thread = new JobThread(core);
    expect(await thread.createJob({ accountId, body: Buffer.from('{}') })).toBeUndefined();
    expect(thread.usable).toBe(false);
    await expect(thread.drain()).rejects.toThrow();
    // the thread's own first line of why, not merely that it ended
    expect(stderr).toEqual(['tel: job thread failed (Error: unable to open database file); running jobs on the main thread\n']);
  });

  it('one that ends in the middle of a job releases that job, for the server to resume at once, and its pass fails', async () => {
    core.config.set('api.resources', { job_batch_size: 1, job_batch_pause_ms: 20 });
    const numbers = Array.from({ length: 200 }, (_, i) => `+1720555${String(i).padStart(4, '0')}`);
    const job = createJob(core, { accountId, resourceId, numbers });
    const thread = new JobThread(core);
    const pass = thread.drain();
    pass.catch(() => {});
    const row = () => findJobById(core, job.id)!;
    for (let i = 0; i < 500 && row().processed === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(row()).toMatchObject({ status: 'running', runner: expect.any(String) });
    await (thread as unknown as { worker: Worker }).worker.terminate();
    await expect(pass).rejects.toThrow('the job thread ended');
    expect(thread.usable).toBe(false);
    const released = row();
    expect(released).toMatchObject({ status: 'running', runner: null });
    expect(released.processed).toBeLessThan(200);
    expect(stderr).toEqual(['tel: job thread failed (the job thread ended); running jobs on the main thread\n']);
  });
});

describe("the job thread's side, served over a channel in this process", () => {
  let tmp: ReturnType<typeof tempDir>;
  let core: Core;
  let accountId: string;
  let resourceId: string;
  let port: MessagePort;
  let heard: { type: string; [k: string]: unknown }[];
  beforeEach(async () => {
    tmp = tempDir('tel-job-thread-side-');
    core = openCore(join(tmp.dir, 'tel.db'));
    accountId = createAccount(core, { name: 'Lab' }, { superduper: true }).id;
    resourceId = createResource(core, { accountId }, { name: 'Carrier', gateways: [] }).id;
    const channel = new MessageChannel();
    port = channel.port2;
    heard = [];
    port.on('message', (m) => heard.push(m));
    await serveJobThread(core.file, channel.port1);
  });
  afterEach(async () => {
    port.close();
    closeCore(core);
    tmp.cleanup();
  });
  async function next(type: string, ms = 5000): Promise<{ type: string; [k: string]: unknown }> {
    for (const start = Date.now(); Date.now() - start < ms; await new Promise((r) => setTimeout(r, 5))) {
      const i = heard.findIndex((m) => m.type === type);
      if (i >= 0) return heard.splice(i, 1)[0];
    }
    throw new Error(`no ${type} message`);
  }
  const row = (id: string) => findJobById(core, id)!;

  it('says it is ready, creates a job from a body, runs the pass it is asked for, telling each claim, and closes', async () => {
    expect(await next('ready')).toEqual({ type: 'ready' });
    const body = Buffer.from(JSON.stringify({ data: { numbers: ['+17205550100', '+17205550101'], resource_id: resourceId } }));
    port.postMessage({ type: 'create', id: 7, job: { accountId, body } });
    const created = await next('created');
    expect(created).toMatchObject({ type: 'created', id: 7 });
    const job = JSON.parse(created.json as string);
    expect(row(job.id)).toMatchObject({ status: 'pending', total: 2 });
    port.postMessage({ type: 'drain' });
    expect(await next('drained')).toEqual({ type: 'drained', held: undefined, fault: undefined });
    expect(await next('claimed')).toEqual({ type: 'claimed', seq: row(job.id).seq, runner: expect.any(String) });
    expect(row(job.id)).toMatchObject({ status: 'complete', successes: 2 });
    const closed = new Promise((r) => port.once('close', r));
    port.postMessage({ type: 'close' });
    await closed;
  });

  it("answers a refused body with the refusal's answer, and stops a pass when asked, releasing its job", async () => {
    await next('ready');
    port.postMessage({ type: 'create', id: 1, job: { accountId, body: Buffer.from(JSON.stringify({ data: { numbers: [''], resource_id: resourceId } })) } });
    const refused = await next('created');
    expect(refused).toMatchObject({ id: 1, error: { api: { status: 400, kazooMessage: 'validation error' } } });
    expect((refused.error as { message: string }).message).toMatch(/validation error/);
    core.config.set('api.resources', { job_batch_size: 1, job_batch_pause_ms: 20 });
    const job = createJob(core, { accountId, resourceId, numbers: Array.from({ length: 100 }, (_, i) => `+1720555${String(1000 + i)}`) });
    port.postMessage({ type: 'drain' });
    await next('claimed');
    port.postMessage({ type: 'stop' });
    expect(await next('drained')).toEqual({ type: 'drained', held: undefined, fault: undefined });
    expect(row(job.id)).toMatchObject({ status: 'running', runner: null });
    expect(row(job.id).processed).toBeLessThan(100);
    // a new pass is not stopped by the last one's stop
    core.config.set('api.resources', { job_batch_size: 50 });
    port.postMessage({ type: 'drain', staleBefore: Date.now() - 60_000 });
    expect(await next('drained')).toEqual({ type: 'drained', held: undefined, fault: undefined });
    expect(row(job.id)).toMatchObject({ status: 'complete', successes: 100 });
  });
});
