import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('GET /v2/about', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  it("answers Kazoo's fields (version, used_memory, processes, ports) and tel's node_version, node, uptime_s", async () => {
    const r = await srv.request('GET', '/v2/about', { token: srv.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      version: r.body.version,
      used_memory: expect.any(Number),
      processes: expect.any(Number),
      ports: expect.any(Number),
      node_version: process.versions.node,
      node: r.body.node,
      uptime_s: expect.any(Number),
    });
    // the server listens: at least its listening socket counts as a port
    expect(r.body.data.ports).toBeGreaterThan(0);
    expect(r.body.data.used_memory).toBeGreaterThan(1_000_000);
  });

  it("without an account it is a super-duper admin's; under one, of those who may act on the account", async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'About Co');
    const other = await createSubAccount(srv, srv.master.account_id, 'About Other');
    const token = await srv.apiLogin(sub.apiKey);
    expect((await srv.request('GET', '/v2/about', { token })).status).toBe(403);
    expect((await srv.request('GET', '/v2/about')).status).toBe(401);
    const mine = await srv.request('GET', `/v2/accounts/${sub.id}/about`, { token });
    expect(mine.status).toBe(200);
    expect(mine.body.data.version).toBe(mine.body.version);
    expect((await srv.request('GET', `/v2/accounts/${other.id}/about`, { token })).status).toBe(403);
    expect((await srv.request('POST', '/v2/about', { token: srv.adminToken, data: {} })).status).toBe(405);
  });
});
