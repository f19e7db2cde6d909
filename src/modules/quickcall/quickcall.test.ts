import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('quickcall: a simulated call from a device or a user to a number', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  let user: string;
  let desk: string;
  const base = () => `/v2/accounts/${account}`;
  const device = async (data: Record<string, unknown>) => (await srv.request('PUT', `${base()}/devices`, { token, data })).body.data.id as string;

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Click To Dial');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    user = (await srv.request('PUT', `${base()}/users`, { token, data: { username: 'cy', first_name: 'Cy', last_name: 'Do' } })).body.data.id;
    desk = await device({ name: 'desk', owner_id: user, sip: { username: 'cy-desk', password: 'pw-12345' } });
    await device({ name: 'soft', owner_id: user, sip: { username: 'cy-soft', password: 'pw-12345' } });
  });
  afterAll(() => srv.close());

  it("a device's quickcall rings it and calls the number (filtered): 202 with Kazoo's originate request, and the call's CDRs", async () => {
    const r = await srv.request('GET', `${base()}/devices/${desk}/quickcall/(415)%20555-0100`, { token });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({
      application_name: 'transfer',
      application_data: { route: '4155550100' },
      outbound_caller_id_name: 'Device QuickCall',
      custom_channel_vars: { authorizing_type: 'device', authorizing_id: desk },
    });
    // cb_quickcall originate/4 answers the request without its AMQP headers (kz_api:remove_defaults/1)
    expect(r.body.data.msg_id).toBeUndefined();
    expect(r.body.data.endpoints).toEqual([expect.objectContaining({ to_user: 'cy-desk', custom_channel_vars: { auto_answer: true } })]);
    const callId = r.body.data.endpoints[0].outbound_call_id;
    expect(callId).toMatch(/-quickcall$/);
    const cdr = (await srv.request('GET', `${base()}/devices/${desk}/cdrs`, { token })).body.data.find((c: any) => c.call_id === callId);
    expect(cdr).toMatchObject({ direction: 'outbound', callee_id_number: '4155550100', caller_id_name: 'Device QuickCall' });
  });

  it("a user's quickcall rings the user's enabled devices; POST answers the call's id; nothing to ring is Kazoo's 500; a pattern filters the number", async () => {
    const r = await srv.request('POST', `${base()}/users/${user}/quickcall/1002?number_filter=false`, { token });
    expect(r.status).toBe(202);
    expect(r.body.data.endpoints.map((e: any) => e.to_user)).toEqual(['cy-desk', 'cy-soft']);
    expect(r.body.data.call_id).toBe(r.body.data.endpoints[0].outbound_call_id);
    const loner = (await srv.request('PUT', `${base()}/users`, { token, data: { username: 'lo', first_name: 'Lo', last_name: 'Ne' } })).body.data.id;
    const none = await srv.request('GET', `${base()}/users/${loner}/quickcall/1002`, { token });
    expect(none.status).toBe(500);
    expect(none.body.data.cause).toBe('no endpoints to ring');
    const off = await device({ name: 'off', enabled: false });
    expect((await srv.request('GET', `${base()}/devices/${off}/quickcall/1002`, { token })).status).toBe(500);
    expect((await srv.request('GET', `${base()}/devices/0123456789abcdef0123456789abcdef/quickcall/1002`, { token })).status).toBe(404);
    const pattern = await srv.request('GET', `${base()}/devices/${desk}/quickcall/%2B14155550100?number_filter=${encodeURIComponent('^\\+?1?(\\d{10})$')}`, { token });
    expect(pattern.body.data.application_data.route).toBe('4155550100');
    // a back-reference: not a pattern the linear-time engine runs
    const backRef = await srv.request('GET', `${base()}/devices/${desk}/quickcall/1002?number_filter=${encodeURIComponent('(1)\\1')}`, { token });
    expect(backRef.status).toBe(400);
    expect(backRef.body.data.number_filter.regex).toMatchObject({ value: '(1)\\1' });
  });
});
