import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('faxes: queued, sent by the simulated fax server, received, e-mailed', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  let box: string;
  const base = () => `/v2/accounts/${account}/faxes`;
  const get = (path: string) => srv.request('GET', `${base()}${path}`, { token });
  const fax = async (data: Record<string, unknown>) => {
    const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'fax', ...data } });
    return { status: r.status, events: (r.body.data?.events ?? []) as Record<string, any>[], body: r.body };
  };
  const queue = (data: Record<string, unknown> = {}) =>
    srv.request('PUT', `${base()}/outgoing`, { token, data: { from_number: '+14155550160', to_number: '4155550150', document: { url: 'http://docs.example/q3.pdf' }, ...data } });

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Fax Office');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    const owner = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { username: 'ed', first_name: 'Ed', last_name: 'Fx', email: 'ed@office.example' } })).body.data.id;
    box = (await srv.request('PUT', `/v2/accounts/${account}/faxboxes`, { token, data: { name: 'Office', caller_id: '+14155550170', owner_id: owner, smtp_permission_list: ['partner.example'] } })).body.data.id;
  });
  afterAll(() => srv.close());

  it('a queued fax is a pending job; the fax server sends it: processing, completed, moved to the outbox, outbound_fax', async () => {
    const q = await queue();
    expect(q.status).toBe(202);
    expect(q.body.data).toMatchObject({ to_number: '+14155550150', status: 'pending', attempts: 0, retries: 1 });
    const job = q.body.data.id;
    expect((await get('/outgoing')).body.data).toEqual([expect.objectContaining({ id: job, status: 'pending', to: '+14155550150', from: '+14155550160', attempts: 0 })]);
    expect((await get(`/outgoing/${job}`)).body.data).toMatchObject({ id: job, status: 'pending', created: expect.any(Number) });
    const sent = await fax({ direction: 'outbound', pages: 3 });
    expect(sent.events.map((e) => e.status ?? e.event_name)).toEqual(['processing', 'completed', 'outbound_fax']);
    expect(sent.events[2]).toMatchObject({ fax_jobid: job, callee_id_number: '+14155550150', caller_id_number: '+14155550160' });
    expect((await get(`/outgoing/${job}`)).status).toBe(404);
    const [done] = (await get('/outbox')).body.data;
    expect(done).toMatchObject({ id: `${done.id.slice(0, 6)}-${job}`, folder: 'outbox', status: 'completed', tx_result: { success: true, pages_sent: 3 } });
    const pdf = await fetch(`${srv.url}${base()}/outbox/${done.id}/attachment`, { headers: { 'X-Auth-Token': token } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const text = Buffer.from(await pdf.arrayBuffer()).toString('latin1');
    expect(text.startsWith('%PDF-')).toBe(true);
    expect(text).toContain('/Count 3');
    expect((await srv.request('DELETE', `${base()}/outbox/${done.id}/attachment`, { token })).status).toBe(200);
    expect((await fetch(`${srv.url}${base()}/outbox/${done.id}/attachment`, { headers: { 'X-Auth-Token': token } })).status).toBe(404);
    const again = await srv.request('PUT', `${base()}/outbox/${done.id}`, { token, data: { action: 'resubmit' } });
    expect(again.body.data).toMatchObject({ to_number: '+14155550150', attempts: 0 });
    expect((await get(`/outgoing/${again.body.data.id}`)).body.data.status).toBe('pending');
    await fax({ direction: 'outbound', job_id: again.body.data.id });
  });

  it('a failed attempt is retried while the job has retries; then it fails: outbox, outbound_fax_error', async () => {
    const job = (await queue({ retries: 2 })).body.data.id;
    const first = await fax({ direction: 'outbound', result: 'failure', error: 'Busy' });
    expect(first.events.map((e) => e.status)).toEqual(['processing', 'pending']);
    const second = await fax({ direction: 'outbound', job_id: job, result: 'failure', error: 'Busy' });
    expect(second.events.map((e) => e.status ?? e.event_name)).toEqual(['processing', 'failed', 'outbound_fax_error']);
    expect(second.events[2].fax_error).toBe('Busy');
    expect((await get('/outbox')).body.data[0]).toMatchObject({ status: 'failed', attempts: 2, tx_result: { success: false, error_message: 'Busy' } });
    expect((await fax({ direction: 'outbound' })).status).toBe(400);
  });

  it('a fax received lands in the inbox of its fax box (incoming too), and can be forwarded; one that fails only notifies', async () => {
    const r = await fax({ from: '+442071838750', to: '+14155550170', faxbox_id: box, pages: 2 });
    expect(r.events.map((e) => e.event)).toEqual(['fax', 'notifications']);
    expect(r.events[1]).toMatchObject({ event_name: 'inbound_fax', fax_id: r.events[0].id, faxbox_id: box });
    const [got] = (await get('/inbox')).body.data;
    expect(got).toMatchObject({ id: r.events[0].id, folder: 'inbox', from_number: '+442071838750', faxbox_id: box, rx_result: { pages_received: 2 } });
    expect((await get('/incoming')).body.data.map((f: any) => f.id)).toEqual([got.id]);
    expect((await get(`/incoming/${got.id}`)).body.data.id).toBe(got.id);
    const forward = await srv.request('PUT', `${base()}/inbox/${got.id}`, { token, data: { action: 'forward', to_number: '+14155550199' } });
    expect(forward.body.data).toMatchObject({ to_number: '+14155550199', from_number: '+442071838750' });
    expect((await srv.request('PUT', `${base()}/inbox/${got.id}`, { token, data: { action: 'resubmit' } })).status).toBe(400);
    const failed = await fax({ result: 'failure' });
    expect(failed.events.map((e) => e.event_name)).toEqual(['inbound_fax_error']);
    expect((await srv.request('DELETE', `${base()}/inbox/${got.id}`, { token })).body.data._read_only).toEqual({ deleted: true });
    expect((await get('/inbox')).body.data).toEqual([]);
  });

  it('a fax e-mailed to a fax box: an allowed sender queues a job from the box, a refused one is in the SMTP log', async () => {
    const ok = await fax({ direction: 'outbound', faxbox_id: box, email_from: 'ann@partner.example', to: '+14155550188' });
    expect(ok.events[0]).toMatchObject({ event: 'fax_job', status: 'pending', faxbox_id: box });
    expect((await get(`/outgoing/${ok.events[0].id}`)).body.data).toMatchObject({ from_number: '+14155550170', retries: 1, faxbox_id: box });
    const refused = await fax({ direction: 'outbound', faxbox_id: box, email_from: 'eve@elsewhere.example', to: '+14155550188' });
    expect(refused.events[0].event).toBe('fax_smtp_log');
    const [log] = (await get('/smtplog')).body.data;
    expect(log).toMatchObject({ from: 'eve@elsewhere.example', error: `address eve@elsewhere.example is not allowed on faxbox ${box}` });
    expect((await get(`/smtplog/${log.id}`)).body.data).toMatchObject({ faxbox_id: box, errors: [log.error] });
  });

  it('a fax to send needs a document and a number of the outside world', async () => {
    expect((await queue({ document: {} })).body.data['document.url'].required.message).toBe('add document url or upload a document');
    expect((await queue({ to_number: 'front desk' })).body.data['document.to_number'].required).toBeTruthy();
    expect((await srv.request('PUT', base(), { token, data: { to_number: '+14155550150', document: { url: 'http://x.example/a.pdf' } } })).body.data.from_number.required).toBeTruthy();
  });
});
