import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { spawnTel } from '../../../test/helpers/cli.js';
import { GREGORIAN_OFFSET_SECONDS } from '../../util/time.js';
import { findJobById, jobDetail } from '../../jobs/store.js';

/** Polls a job until it reaches a final status (bounded). */
async function waitDone(srv: TestServer, path: string, token: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await srv.request('GET', path, { token });
    if (r.body.data.status === 'complete' || r.body.data.status === 'failed') return r.body.data;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`job at ${path} did not finish`);
}

describe('bulk number jobs', () => {
  let srv: TestServer;
  let sub: { id: string; apiKey: string };
  let token: string;
  let base: string;
  let resourceId: string;
  beforeAll(async () => {
    srv = await startTestServer();
    srv.core.config.set('api.resources', { job_batch_size: 7, job_poll_interval_ms: 50 });
    sub = await createSubAccount(srv, srv.master.account_id, 'Numbers Co');
    token = await srv.apiLogin(sub.apiKey);
    base = `/v2/accounts/${sub.id}/resources`;
    const r = await srv.request('PUT', base, { token, data: { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] } });
    resourceId = r.body.data.id;
  });
  afterAll(async () => srv.close());

  it('PUT answers at once (201) with the pending job; the executor then adds every number', async () => {
    const numbers = ['+14155550100', '4155550101', '1 (415) 555-0102', '011441234567890', 'not-a-number', '+14155550100'];
    const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resourceId, name: 'First batch' } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ resource_id: resourceId, numbers, status: 'pending', successes: {}, errors: {}, name: 'First batch' });
    expect(r.body.data.id).toMatch(/^\d{6}-[0-9a-f]+$/);
    const now = new Date();
    expect(r.body.data.id.slice(0, 6)).toBe(`${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`);

    const job = await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token);
    expect(job.status).toBe('complete');
    expect(Object.keys(job.successes).sort()).toEqual(['+14155550100', '+14155550101', '+14155550102', '+441234567890']);
    expect(job.successes['+14155550101']).toMatchObject({ state: 'reserved', resource_id: resourceId, assigned_to: sub.id });
    expect(job.errors['not-a-number'].reason).toBe('invalid_number');
    expect(job.errors['+14155550100']).toMatchObject({ reason: 'number_exists' });
    expect(job).toMatchObject({ total: 6, processed: 6, numbers });

    const inventory = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token });
    expect(inventory.status).toBe(200);
    expect(Object.keys(inventory.body.data.numbers)).toEqual(['+14155550100', '+14155550101', '+14155550102', '+441234567890']);
    expect(inventory.body.data.numbers['+441234567890']).toMatchObject({ state: 'reserved', resource_id: resourceId, features: [] });
  });

  it('a number another account already owns is an error of the job, not a move', async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Other Co');
    const otherToken = await srv.apiLogin(other.apiKey);
    const res = await srv.request('PUT', `/v2/accounts/${other.id}/resources`, { token: otherToken, data: { name: 'O', gateways: [] } });
    const r = await srv.request('PUT', `/v2/accounts/${other.id}/resources/jobs`, {
      token: otherToken,
      data: { numbers: ['+14155550101', '+14155550199'], resource_id: res.body.data.id },
    });
    const job = await waitDone(srv, `/v2/accounts/${other.id}/resources/jobs/${r.body.data.id}`, otherToken);
    expect(Object.keys(job.successes)).toEqual(['+14155550199']);
    expect(job.errors['+14155550101'].reason).toBe('number_exists');
    const mine = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token });
    expect(mine.body.data.numbers['+14155550101'].assigned_to).toBe(sub.id);
  });

  it('an unknown resource fails the job, with the reason recorded for every number', async () => {
    const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers: ['+14155550150', '+14155550151'], resource_id: 'nope' } });
    const job = await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token);
    expect(job.status).toBe('failed');
    expect(job.successes).toEqual({});
    expect(job.errors['+14155550150']).toEqual({ reason: 'unknown_resource', message: 'resource nope does not exist' });
    const inventory = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token });
    expect(inventory.body.data.numbers['+14155550150']).toBeUndefined();
  });

  it('a global resource routes an account job too; global jobs fill the master account', async () => {
    const g = await srv.request('PUT', '/v2/resources', { token: srv.adminToken, data: { name: 'Global carrier', gateways: [] } });
    const mine = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers: ['+14155550160'], resource_id: g.body.data.id } });
    expect((await waitDone(srv, `${base}/jobs/${mine.body.data.id}`, token)).status).toBe('complete');
    expect((await srv.request('PUT', '/v2/resources/jobs', { token, data: { numbers: ['+1'], resource_id: 'x' } })).status).toBe(403);
    const global = await srv.request('PUT', '/v2/resources/jobs', { token: srv.adminToken, data: { numbers: ['+14155550170'], resource_id: g.body.data.id } });
    expect((await waitDone(srv, `/v2/resources/jobs/${global.body.data.id}`, srv.adminToken)).status).toBe('complete');
    const master = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/phone_numbers`, { token: srv.adminToken });
    expect(master.body.data.numbers['+14155550170']).toBeTruthy();
  });

  it('a job body without numbers or resource_id is a 400 naming the field', async () => {
    const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers: [] } });
    expect(r.status).toBe(400);
    expect(r.body.data.numbers.minItems).toBeTruthy();
    expect(r.body.data.resource_id.required).toBeTruthy();
  });

  it('GET …/jobs lists summaries newest first with counts, filtered by created_from/created_to, paged by an integer start_key', async () => {
    const all = await srv.request('GET', `${base}/jobs`, { token });
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(3);
    // Newest first, as Kazoo's time-ranged listings; the first job made is listed last.
    const first = all.body.data[all.body.data.length - 1];
    expect(first).toMatchObject({ status: 'complete', resource_id: resourceId, successes: 4, failures: 2, total: 6, name: 'First batch' });
    const ascending = await srv.request('GET', `${base}/jobs?ascending=true`, { token });
    expect(ascending.body.data.map((j: { id: string }) => j.id)).toEqual([...all.body.data].reverse().map((j: { id: string }) => j.id));
    expect(first.timestamp).toBeGreaterThan(GREGORIAN_OFFSET_SECONDS);

    const page = await srv.request('GET', `${base}/jobs?page_size=1`, { token });
    expect(page.body.page_size).toBe(1);
    expect(Number.isInteger(page.body.start_key)).toBe(true);
    expect(Number.isInteger(page.body.next_start_key)).toBe(true);
    const next = await srv.request('GET', `${base}/jobs?page_size=1&start_key=${page.body.next_start_key}`, { token });
    expect(next.body.data[0].id).toBe(all.body.data[1].id);

    const failed = await srv.request('GET', `${base}/jobs?filter_status=failed`, { token });
    expect(failed.body.data.map((j: { status: string }) => j.status)).toEqual(['failed']);
    const future = first.timestamp + 3600;
    expect((await srv.request('GET', `${base}/jobs?created_from=${future}`, { token })).body.data).toEqual([]);
    expect((await srv.request('GET', `${base}/jobs?created_to=${first.timestamp - 1}`, { token })).body.data).toEqual([]);
    const window = await srv.request('GET', `${base}/jobs?created_from=${first.timestamp}&created_to=${future}`, { token });
    expect(window.body.data.length).toBe(all.body.data.length);
    const bad = await srv.request('GET', `${base}/jobs?created_from=${future}&created_to=${first.timestamp}`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toEqual({ created_from: { date_range: { message: `created_to ${first.timestamp} is prior to created_from ${future}`, cause: future } } });
  });

  it('a job id of another account, or not of the YYYYMM- form, is a 404', async () => {
    const all = await srv.request('GET', `${base}/jobs`, { token });
    const other = await createSubAccount(srv, srv.master.account_id, 'Nosy Co');
    const otherToken = await srv.apiLogin(other.apiKey);
    const r = await srv.request('GET', `/v2/accounts/${other.id}/resources/jobs/${all.body.data[0].id}`, { token: otherToken });
    expect(r.status).toBe(404);
    expect((await srv.request('GET', `${base}/jobs/garbage`, { token })).status).toBe(404);
  });

  it('phone_numbers pages by number with start_key / next_start_key, or all with paginate=false', async () => {
    const numbers = Array.from({ length: 25 }, (_, i) => `+1312555${String(1000 + i)}`);
    const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resourceId } });
    await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token);
    const path = `/v2/accounts/${sub.id}/phone_numbers`;
    const seen: string[] = [];
    let key: string | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await srv.request('GET', `${path}?page_size=10${key ? `&start_key=${encodeURIComponent(key)}` : ''}`, { token });
      seen.push(...Object.keys(page.body.data.numbers));
      key = page.body.next_start_key;
      if (!key) break;
    }
    const all = await srv.request('GET', `${path}?paginate=false`, { token });
    expect(seen).toEqual(Object.keys(all.body.data.numbers));
    expect(seen).toEqual([...seen].sort());
    expect(all.body.next_start_key).toBeUndefined();
    expect(seen).toEqual(expect.arrayContaining(numbers));

    // A client that echoes the key without URL-encoding its `+` (read back as a space) still gets the next page.
    const first = await srv.request('GET', `${path}?page_size=10`, { token });
    const raw = await srv.request('GET', `${path}?page_size=10&start_key=${first.body.next_start_key}`, { token });
    expect(raw.status).toBe(200);
    expect(Object.keys(raw.body.data.numbers)[0]).toBe(first.body.next_start_key);
    expect(raw.body.start_key).toBe(first.body.next_start_key);
  });

  it('a job created by another process (the offline CLI) is picked up by the running server', async () => {
    const run = await spawnTel(['jobs', 'create', '--db', srv.dbFile, '--account', sub.id, '--resource', resourceId, '--numbers', '-', '--no-wait', '--json'], {
      stdin: '+16175550100\n+16175550101\n',
    });
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout);
    expect(created.status).toBe('pending');
    const job = await waitDone(srv, `${base}/jobs/${created.id}`, token);
    expect(Object.keys(job.successes)).toEqual(['+16175550100', '+16175550101']);
  });

  it("a job's detail: each success as the inventory shows it (or released), each error under the number as given", async () => {
    // successes, a number given twice, numbers no inventory takes (integer-like, quoted, accented:
    // object keys a serialiser orders or escapes), one of them given twice, and a name to escape
    // and backslashes, one of them before a quote (escaped, in the stored JSON, as \\ and \")
    const numbers = ['+14155550180', '4155550181', '+14155550180', '12345', '007', '"quoted"', 'é', '12345', 'x\\', 'a\\"b\\\\', '+14155550182'];
    const name = 'Mixed "batch" ✓';
    const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resourceId, name } });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    await waitDone(srv, `${base}/jobs/${id}`, token);
    // a number released since the job added it
    srv.core.db.prepare('DELETE FROM phone_numbers WHERE number = ?').run('+14155550182');

    const answered = await srv.request('GET', `${base}/jobs/${id}`, { token });
    expect(answered.status).toBe(200);
    const detail = answered.body.data;
    expect(Object.keys(detail)).toEqual(['id', 'resource_id', 'numbers', 'status', 'successes', 'errors', 'timestamp', 'total', 'processed', 'modified', 'name']);
    expect(detail).toMatchObject({ id, resource_id: resourceId, numbers, status: 'complete', total: 11, processed: 11, name });
    expect(Object.keys(detail.successes)).toEqual(['+14155550180', '+14155550181', '+14155550182']);
    const inventory = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token });
    // as the inventory shows it, but for what the listing works out for its caller (features_available)
    for (const n of ['+14155550180', '+14155550181']) {
      const { features_available: _caller, ...listed } = inventory.body.data.numbers[n];
      expect(detail.successes[n]).toEqual(listed);
    }
    expect(detail.successes['+14155550180']).toMatchObject({ assigned_to: sub.id, state: 'reserved', resource_id: resourceId, job_id: id, features: [] });
    expect(detail.successes['+14155550182']).toEqual({ state: 'released' });
    expect(detail.errors).toEqual({
      '12345': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      '+14155550180': { reason: 'number_exists', message: 'number +14155550180 already exists' },
      '007': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      '"quoted"': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      é: { reason: 'invalid_number', message: 'not a valid E.164 number' },
      'x\\': { reason: 'invalid_number', message: 'not a valid E.164 number' },
      'a\\"b\\\\': { reason: 'invalid_number', message: 'not a valid E.164 number' },
    });
    expect(Object.keys(detail.errors)).toEqual(['12345', '+14155550180', '007', '"quoted"', 'é', 'x\\', 'a\\"b\\\\']);
    // the store's object is that answer, read
    expect(jobDetail(srv.core, findJobById(srv.core, id)!)).toEqual(detail);

    const failed = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers: ['+14155550183'], resource_id: 'nope' } });
    await waitDone(srv, `${base}/jobs/${failed.body.data.id}`, token);
    const f = (await srv.request('GET', `${base}/jobs/${failed.body.data.id}`, { token })).body.data;
    expect(f).toMatchObject({ status: 'failed', successes: {}, reason: 'unknown resource', errors: { '+14155550183': { reason: 'unknown_resource', message: 'resource nope does not exist' } } });
  });

  it("a job's detail with more errors than one range of results (1,000) names each error once", async () => {
    srv.core.config.set('api.resources', { job_batch_size: 1000, job_poll_interval_ms: 50 });
    try {
      const numbers = Array.from({ length: 1001 }, (_, i) => `bad-${i}`);
      const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resourceId } });
      await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token);
      const detail = await srv.request('GET', `${base}/jobs/${r.body.data.id}`, { token });
      expect(Object.keys(detail.body.data.errors)).toEqual(numbers);
      // as written, not only as parsed (a key written twice would parse once)
      expect(detail.text.match(/"bad-\d+":\{/g)).toHaveLength(1001);
    } finally {
      srv.core.config.set('api.resources', { job_batch_size: 7, job_poll_interval_ms: 50 });
    }
  });

  it("a job's detail over several ranges of successes, some of them all errors, is one object with each success once", async () => {
    srv.core.config.set('api.resources', { job_batch_size: 1000, job_poll_interval_ms: 50 });
    try {
      // ranges of 200 positions: the first and the third all errors, the second and the fourth successes
      const numbers = Array.from({ length: 650 }, (_, i) => (Math.floor(i / 200) % 2 === 0 ? `bad-${i}` : `+1646555${String(i).padStart(4, '0')}`));
      const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers, resource_id: resourceId } });
      await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token);
      const detail = await srv.request('GET', `${base}/jobs/${r.body.data.id}`, { token });
      expect(detail.status).toBe(200);
      expect(Object.keys(detail.body.data.successes)).toEqual(numbers.filter((n) => n.startsWith('+')));
      expect(Object.keys(detail.body.data.errors)).toEqual(numbers.filter((n) => n.startsWith('bad')));
      expect(detail.text.match(/"\+1646555\d{4}":\{/g)).toHaveLength(250);
    } finally {
      srv.core.config.set('api.resources', { job_batch_size: 7, job_poll_interval_ms: 50 });
    }
  });

  it("a job made through the server's own API starts at once, not at the next poll", async () => {
    srv.core.config.set('api.resources', { job_batch_size: 7, job_poll_interval_ms: 600_000 });
    try {
      // the pass under way ends and the next is set for ten minutes from now
      await new Promise((r) => setTimeout(r, 200));
      const r = await srv.request('PUT', `${base}/jobs`, { token, data: { numbers: ['+14155550190'], resource_id: resourceId } });
      expect(r.status).toBe(201);
      expect((await waitDone(srv, `${base}/jobs/${r.body.data.id}`, token)).status).toBe('complete');
    } finally {
      // the next pass is still ten minutes away: this stays the describe's last test
      srv.core.config.set('api.resources', { job_batch_size: 7, job_poll_interval_ms: 50 });
    }
  });
});
