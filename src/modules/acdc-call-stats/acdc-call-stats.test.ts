import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { CALL_STAT_COLUMNS } from './service.js';

describe('acdc_call_stats: what queue calls leave in the statistics', () => {
  let srv: TestServer;
  let account: string;
  let token: string;

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Support Desk');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
  });
  afterAll(() => srv.close());

  it("each simulated queue call is a row with Kazoo's columns, newest first, in the window", async () => {
    const queue = (await srv.request('PUT', `/v2/accounts/${account}/queues`, { token, data: { name: 'Support' } })).body.data.id;
    const agent = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { username: 'agent', first_name: 'A', last_name: 'G' } })).body.data.id;
    const calls: string[] = [];
    for (const [wait, talk] of [[5, 40], [20, 90]]) {
      const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, {
        token,
        data: { kind: 'queue_call', queue_id: queue, agent_id: agent, caller_id_number: '+14155550111', wait_time: wait, talk_time: talk },
      });
      expect(r.status).toBe(201);
      calls.push(r.body.data.events[0].call_id);
    }
    const list = await srv.request('GET', `/v2/accounts/${account}/acdc_call_stats`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    const [newest] = list.body.data;
    expect(Object.keys(newest)).toEqual([...CALL_STAT_COLUMNS]);
    expect(newest).toMatchObject({ queue_id: queue, agent_id: agent, caller_id_number: '+14155550111', wait_time: 20, talk_time: 90, status: 'processed', entered_position: 1 });
    expect((await srv.request('GET', `/v2/accounts/${account}/acdc_call_stats?created_from=63000000000&created_to=63000000010`, { token })).body.data).toEqual([]);
  });
});
