import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { toE164 } from './normalize.js';
import { numberJson, numberJsonText, type NumberRow } from './service.js';

describe('E.164 normalisation of numbers as typed', () => {
  it.each([
    ['+14155550100', '+14155550100'],
    ['4155550100', '+14155550100'],
    ['14155550100', '+14155550100'],
    ['1 (415) 555-0100', '+14155550100'],
    ['415.555.0100', '+14155550100'],
    ['011441234567890', '+441234567890'],
    ['00441234567890', '+441234567890'],
    ['+33 1 23 45 67 89', '+33123456789'],
  ])('%s → %s', (input, expected) => expect(toE164(input)).toBe(expected));

  it.each([['hello'], ['12345'], ['+0123456789'], ['+1234567890123456'], ['1055550100'], ['']])('%s is not a number', (input) =>
    expect(toE164(input)).toBeUndefined(),
  );
});

describe("a number's record as JSON text (job details write one per number)", () => {
  const row: NumberRow = { number: '+14155550100', account_id: 'a"b\\c', resource_id: 'r1', state: 'in_service', job_id: '202611-ab', created: 1_795_000_000_123, modified: 1_795_000_999_999 };
  it.each([
    ['with a resource and a job', row],
    ['without either', { ...row, resource_id: null, job_id: null }],
    ['with an empty resource', { ...row, resource_id: '', job_id: null }],
  ])('%s: the very text the record serialises to', (_name, r) => expect(numberJsonText(r)).toBe(JSON.stringify(numberJson(r))));
});

describe('GET /v2/accounts/{id}/phone_numbers', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    srv.core.config.set('api.resources', { job_poll_interval_ms: 50 });
  });
  afterAll(async () => srv.close());

  it('an account without numbers answers an empty map; a foreign token is refused', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Empty Co');
    const token = await srv.apiLogin(sub.apiKey);
    const r = await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ cascade_quantity: 0, numbers: {} });
    const other = await createSubAccount(srv, srv.master.account_id, 'Other');
    const otherToken = await srv.apiLogin(other.apiKey);
    expect((await srv.request('GET', `/v2/accounts/${sub.id}/phone_numbers`, { token: otherToken })).status).toBe(403);
  });

  it('deleting an account releases its numbers and removes its jobs', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Leaving Co');
    const token = await srv.apiLogin(sub.apiKey);
    const res = await srv.request('PUT', `/v2/accounts/${sub.id}/resources`, { token, data: { name: 'C', gateways: [] } });
    const job = await srv.request('PUT', `/v2/accounts/${sub.id}/resources/jobs`, {
      token,
      data: { numbers: ['+12125550100'], resource_id: res.body.data.id },
    });
    for (let i = 0; i < 100; i++) {
      const j = await srv.request('GET', `/v2/accounts/${sub.id}/resources/jobs/${job.body.data.id}`, { token });
      if (j.body.data.status === 'complete') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const del = await srv.request('DELETE', `/v2/accounts/${sub.id}`, { token: srv.adminToken });
    expect(del.status).toBe(200);
    const left = srv.core.db.prepare('SELECT (SELECT COUNT(*) FROM phone_numbers WHERE account_id = ?) AS n, (SELECT COUNT(*) FROM resource_jobs WHERE account_id = ?) AS j, (SELECT COUNT(*) FROM resource_job_results r WHERE NOT EXISTS (SELECT 1 FROM resource_jobs WHERE seq = r.job_seq)) AS orphans, (SELECT COUNT(*) FROM resource_job_numbers l WHERE NOT EXISTS (SELECT 1 FROM resource_jobs WHERE seq = l.job_seq)) AS lists').get(sub.id, sub.id);
    expect(left).toEqual({ n: 0, j: 0, orphans: 0, lists: 0 });
    // The number is free again: another account can add it.
    const other = await createSubAccount(srv, srv.master.account_id, 'Next Co');
    const otherToken = await srv.apiLogin(other.apiKey);
    const r2 = await srv.request('PUT', `/v2/accounts/${other.id}/resources`, { token: otherToken, data: { name: 'C', gateways: [] } });
    const job2 = await srv.request('PUT', `/v2/accounts/${other.id}/resources/jobs`, {
      token: otherToken,
      data: { numbers: ['+12125550100'], resource_id: r2.body.data.id },
    });
    let status = '';
    for (let i = 0; i < 100 && status !== 'complete'; i++) {
      status = (await srv.request('GET', `/v2/accounts/${other.id}/resources/jobs/${job2.body.data.id}`, { token: otherToken })).body.data.status;
      if (status !== 'complete') await new Promise((r) => setTimeout(r, 20));
    }
    const inv = await srv.request('GET', `/v2/accounts/${other.id}/phone_numbers`, { token: otherToken });
    expect(Object.keys(inv.body.data.numbers)).toEqual(['+12125550100']);
  });
});
