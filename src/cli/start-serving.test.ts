import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { warmAtFirstCall } from './start-serving.js';

describe('the warm-up of connection paths comes with the first simulated call', () => {
  let srv: TestServer;
  let warmUps = 0;
  beforeAll(async () => {
    srv = await startTestServer();
    warmAtFirstCall(srv.core, async () => {
      warmUps++;
    });
  });
  afterAll(() => srv.close());

  /** Lets a warm-up scheduled by the last request run. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const account = () => srv.master.account_id;

  it('not with reads nor document writes: a server that only answers requests never runs it', async () => {
    expect((await srv.request('GET', `/v2/accounts/${account()}`, { token: srv.adminToken })).status).toBe(200);
    expect((await srv.request('PUT', `/v2/accounts/${account()}/devices`, { token: srv.adminToken, data: { name: 'desk' } })).status).toBe(201);
    await settle();
    expect(warmUps).toBe(0);
  });

  it('once, at the first call, whatever the calls after it', async () => {
    const call = { kind: 'call', direction: 'inbound', caller_id_number: '+14155550001', callee_id_number: '+14155550100' };
    expect((await srv.request('PUT', `/v2/accounts/${account()}/simulations`, { token: srv.adminToken, data: call })).status).toBe(201);
    await settle();
    expect(warmUps).toBe(1);
    for (let i = 0; i < 3; i++) expect((await srv.request('PUT', `/v2/accounts/${account()}/simulations`, { token: srv.adminToken, data: call })).status).toBe(201);
    await settle();
    expect(warmUps).toBe(1);
  });
});
