import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';
import { insertNumbers } from '../numbers/service.js';

describe('sms and mms: sent through the API or simulated arriving, stored and delivered', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let token: string;
  const base = () => `/v2/accounts/${account}`;
  const put = (type: string, data: Record<string, unknown>) => srv.request('PUT', `${base()}/${type}`, { token, data });

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Texting');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    insertNumbers(srv.core.db, ['+14155550142'], { accountId: account, resourceId: 'carrier', jobId: 'lab', now: Date.now() });
    insertNumbers(srv.core.db, ['+14155550143'], { accountId: srv.master.account_id, resourceId: 'carrier', jobId: 'lab', now: Date.now() });
    const hook = await srv.request('PUT', `${base()}/webhooks`, { token, data: { name: 'texts', uri: `${sink.url}/sms`, hook: 'sms', http_verb: 'post', format: 'json' } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('an sms to a number of the outside world goes offnet from a number of the account; its sms event is delivered', async () => {
    const r = await put('sms', { from: '+14155550142', to: '4155550199', body: 'Running late' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ from: '+14155550142', to: '+14155550199', route_type: 'offnet', body: 'Running late', custom_vars: { account_id: account, authorizing_type: 'account' } });
    const [sent] = await sink.waitFor(1, { filter: (q) => q.path === '/sms' });
    expect(JSON.parse(sent.body)).toMatchObject({ type: 'sms', id: r.body.data.message_id, from: '+14155550142', to: '+14155550199', body: 'Running late', origin: 'offnet', account_id: account });
    const one = await srv.request('GET', `${base()}/sms/${r.body.data.id}`, { token });
    expect(one.body.data).toMatchObject({ id: r.body.data.id, from: '+14155550142', to: '+14155550199', body: 'Running late', route_type: 'offnet' });
  });

  it('a sender number the account does not hold, or none at all, is refused; to an extension it stays onnet', async () => {
    for (const from of ['+14155550143', '+14155550777']) {
      const r = await put('sms', { from, to: '+14155550199', body: 'hi' });
      expect(r.status).toBe(400);
      expect(r.body.data.from.invalid.message).toBe('number is invalid');
    }
    expect((await put('sms', { to: '+14155550199', body: 'hi' })).body.data.from.required).toBeTruthy();
    expect((await put('sms', { to: '+14155550199' })).body.data.body.required).toBeTruthy();
    const onnet = await put('sms', { from: '1001', to: '1002', body: 'lunch?' });
    expect(onnet.body.data).toMatchObject({ route_type: 'onnet', to: '1002' });
  });

  it("listings are Kazoo's view rows, newest first: an arriving message is inbound; a message is deleted", async () => {
    const sim = await srv.request('PUT', `${base()}/simulations`, { token, data: { kind: 'sms', from: '+442071838750', to: '+14155550142', body: 'On my way' } });
    expect(sim.status).toBe(201);
    const list = await srv.request('GET', `${base()}/sms`, { token });
    expect(list.status).toBe(200);
    const [newest, ...older] = list.body.data;
    expect(newest).toMatchObject({ key: [newest.value.created, newest.id], value: { from: '+442071838750', to: '+14155550142', direction: 'inbound', status: 'delivered', body: 'On my way' } });
    expect(newest.date).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(older.map((r: any) => r.value.direction)).toEqual(['outbound', 'outbound']);
    const gone = await srv.request('DELETE', `${base()}/sms/${newest.id}`, { token });
    expect(gone.body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', `${base()}/sms/${newest.id}`, { token })).status).toBe(404);
  });

  it('an mms body is MIME; mms are listed apart from sms', async () => {
    expect((await put('mms', { from: '+14155550142', to: '+14155550199', body: 'just text' })).body.data.body.required.message).toBe('add mime encoded body or upload one or more files');
    const mime = 'Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=';
    const r = await put('mms', { from: '+14155550142', to: '+14155550199', body: mime });
    expect(r.status).toBe(201);
    const list = await srv.request('GET', `${base()}/mms`, { token });
    expect(list.body.data.map((m: any) => m.id)).toEqual([r.body.data.id]);
  });
});
