import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';

describe('click-to-call connect (/v2/accounts/{id}/clicktocall/{id}/connect)', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let token: string;
  let c2c: string;
  const at = (path: string) => `/v2/accounts/${account}/clicktocall/${path}`;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    const a = await createSubAccount(srv, srv.master.account_id, 'Click');
    account = a.id;
    token = await srv.apiLogin(a.apiKey);
    c2c = (
      await srv.request('PUT', `/v2/accounts/${account}/clicktocall`, {
        token,
        data: { name: 'Web callback', extension: '1000', caller_id_number: '+14155550000', whitelist: ['^\\+1415'], custom_application_vars: { campaign: 'spring' } },
      })
    ).body.data.id;
    const hook = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token, data: { name: 'calls', hook: 'channel_create', uri: `${sink.url}/c2c`, http_verb: 'post', format: 'json' } });
    expect(hook.status, hook.text).toBe(201);
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  it("connect places a simulated call authorized as the click-to-call, answers Kazoo's originate request (202), and keeps it in the history", async () => {
    const r = await srv.request('POST', at(`${c2c}/connect`), { token, data: { contact: '4155550123' } });
    expect(r.status, r.text).toBe(202);
    expect(r.body.data).toMatchObject({
      application_name: 'transfer',
      application_data: { route: '+14155550123' },
      endpoints: [{ invite_format: 'loopback', route: '1000', to_did: '1000' }],
      outbound_caller_id_number: '+14155550000',
      outbound_caller_id_name: 'Web callback',
      outbound_callee_id_number: '1000',
      custom_channel_vars: { authorizing_id: c2c, authorizing_type: 'clicktocall', auto_answer_loopback: true },
      custom_application_vars: { campaign: 'spring' },
      timeout: 30,
    });
    const callId = r.body.data.call_id;
    expect(callId).toMatch(new RegExp(`^c2c-${c2c}-[0-9a-f]{10}$`));
    const [delivered] = await sink.waitFor(1, { filter: (q) => q.path === '/c2c' });
    expect(JSON.parse(delivered.body)).toMatchObject({ call_id: callId, authorizing_id: c2c, authorizing_type: 'clicktocall', call_direction: 'outbound', caller_id_number: '+14155550000', callee_id_number: '1000' });
    // blocking: answered once the call is placed, with its history entry
    const blocking = await srv.request('GET', at(`${c2c}/connect?contact=%2B14155550124&blocking=true`), { token });
    expect(blocking.status, blocking.text).toBe(200);
    expect(blocking.body.data).toEqual({ timestamp: expect.any(Number), contact: '+14155550124', call_id: expect.stringMatching(/^c2c-/), result: 'success' });
    const history = await srv.request('GET', at(`${c2c}/history`), { token });
    expect(history.body.data.map((h: { contact: string }) => h.contact)).toEqual(['+14155550124', '+14155550123']);
    expect(history.body.data[1]).toMatchObject({ call_id: callId, result: 'success', id: expect.any(String) });
    const oldest = await srv.request('GET', at(`${c2c}/history?ascending=true&page_size=1`), { token });
    expect(oldest.body.data.map((h: { contact: string }) => h.contact)).toEqual(['+14155550123']);
    expect((await srv.request('GET', at(`${c2c}/history?created_to=63000000000`), { token })).body.data).toEqual([]);
  });

  it("a contact is required and must match the whitelist, whose patterns run in linear time (one RE2 does not take is refused when written)", async () => {
    const missing = await srv.request('POST', at(`${c2c}/connect`), { token, data: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.data.contact.required.message).toBe('The contact extension for this click to call has not been set');
    const outside = await srv.request('POST', at(`${c2c}/connect`), { token, data: { contact: '+442071234567' } });
    expect(outside.status).toBe(400);
    expect(outside.body.message).toBe("Contact doesn't match whitelist");
    const lookahead = await srv.request('PUT', `/v2/accounts/${account}/clicktocall`, { token, data: { name: 'Ahead', extension: '1001', whitelist: ['^(?=1)'] } });
    expect(lookahead.status).toBe(400);
    expect(lookahead.body.data['whitelist.0']).toBeDefined();
    // backtracking would take V8 longer than the test; RE2 answers at once
    const nested = (await srv.request('PUT', `/v2/accounts/${account}/clicktocall`, { token, data: { name: 'Nested', extension: '1001', whitelist: ['^(\\d+)+$'] } })).body.data.id;
    const started = Date.now();
    const slow = await srv.request('POST', at(`${nested}/connect`), { token, data: { contact: `${'1'.repeat(40)}x` } });
    expect(slow.body.message).toBe("Contact doesn't match whitelist");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('deleting a click-to-call takes its history; an unknown one is a 404', async () => {
    const gone = await srv.request('DELETE', `/v2/accounts/${account}/clicktocall/${c2c}`, { token });
    expect(gone.body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', at(`${c2c}/history`), { token })).status).toBe(404);
    expect(srv.core.db.prepare('SELECT count(*) AS n FROM clicktocall_history WHERE clicktocall_id = ?').get(c2c)).toEqual({ n: 0 });
    expect((await srv.request('POST', at(`${c2c}/connect`), { token, data: { contact: '+14155550123' } })).status).toBe(404);
  });
});
