import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('apps_link/authorize and system_status', () => {
  let srv: TestServer;
  let sub: { id: string; apiKey: string };
  let child: { id: string; apiKey: string };
  let token: string;

  beforeAll(async () => {
    srv = await startTestServer();
    sub = await createSubAccount(srv, srv.master.account_id, 'Linked');
    token = await srv.apiLogin(sub.apiKey);
    child = await createSubAccount(srv, sub.id, 'Linked Child', token);
  });
  afterAll(() => srv?.close());

  it("answers the token's account and apps, and the account the link names", async () => {
    const r = await srv.request('GET', `/v2/accounts/${child.id}/apps_link/authorize`, { token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.auth_token).toMatchObject({ account_id: sub.id, account_name: 'Linked', method: 'cb_api_auth', language: 'en-US', is_reseller: false, is_master: false, apps: expect.any(Array) });
    expect(r.body.data.auth_token.created).toBeGreaterThan(63_000_000_000);
    expect(r.body.data.auth_token.owner_id).toBeUndefined();
    expect(r.body.data.account).toEqual({ account_id: child.id, account_name: 'Linked Child', language: 'en-US', is_reseller: false, reseller_id: srv.master.account_id, is_master: false });
    const master = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/apps_link/authorize`, { token: srv.adminToken });
    expect(master.body.data.account.is_master).toBe(true);
    expect(master.body.data.auth_token.is_master).toBe(true);
    expect((await srv.request('GET', `/v2/accounts/${srv.master.account_id}/apps_link/authorize`, { token })).status).toBe(403);
    expect((await srv.request('GET', `/v2/accounts/${sub.id}/apps_link/authorize`, { token: null })).status).toBe(401);
  });

  it('answers the one node, tel, to a super-duper admin only', async () => {
    const r = await srv.request('GET', '/v2/system_status', { token: srv.adminToken });
    expect(r.status, r.text).toBe(200);
    const [zone] = Object.keys(r.body.data);
    const [type] = Object.keys(r.body.data[zone]);
    const nodes = Object.values(r.body.data[zone][type]) as Record<string, unknown>[];
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ zone, kapps: ['crossbar', 'webhooks'], channels: 0, conferences: 0, registrations: 0 });
    expect(nodes[0].used_memory).toMatch(/^\d+\.\d\dMB$/);
    expect(nodes[0].node).toBe(r.body.node);
    expect((await srv.request('GET', '/v2/system_status', { token })).status).toBe(403);
    expect((await srv.request('GET', '/v2/system_status', { token: null })).status).toBe(401);
  });
});
