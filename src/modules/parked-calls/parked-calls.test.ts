import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('parked calls: the slots the parking simulation leaves holding a call', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const park = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'parking', ...data } });
  const slots = async () => (await srv.request('GET', `/v2/accounts/${account}/parked_calls`, { token })).body.data.slots;

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Parking Lot');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
  });
  afterAll(() => srv.close());

  it('a call left parked holds its slot until a later simulation retrieves it; a held slot takes no other call', async () => {
    expect(await slots()).toEqual({});
    const parked = await park({ slot: 101, caller_id_number: '+14155550100', caller_id_name: 'Ann' });
    const callId = parked.body.data.events[0].call_id;
    expect(await slots()).toEqual({
      101: expect.objectContaining({ call_id: callId, cid_number: '+14155550100', cid_name: 'Ann', presence_id: expect.stringMatching(/^\*3101@/) }),
    });
    const again = await park({ slot: 101 });
    expect(again.status).toBe(400);
    expect(again.body.data.slot.unique).toBeTruthy();
    await park({ slot: 7, outcome: 'abandoned' });
    expect(Object.keys(await slots())).toEqual(['101']);
    const retrieved = await park({ slot: 101, outcome: 'retrieved' });
    expect(retrieved.body.data.events.map((e: any) => [e.event_name, e.call_id, e.caller_id_name])).toEqual([['PARK_RETRIEVED', callId, 'Ann']]);
    expect(await slots()).toEqual({});
  });
});
