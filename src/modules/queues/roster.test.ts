import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink } from '../../../test/helpers/sink.js';

describe('queue roster (/v2/accounts/{id}/queues/{queue_id}/roster)', () => {
  let srv: TestServer;
  let account: { id: string; apiKey: string };
  let queue: string;
  let other: string;
  let a1: string;
  let a2: string;
  let clerkToken: string;
  const roster = (q = queue) => `/v2/accounts/${account.id}/queues/${q}/roster`;

  beforeAll(async () => {
    srv = await startTestServer();
    account = await createSubAccount(srv, srv.master.account_id, 'Roster Co');
    const token = srv.adminToken;
    const mk = async (username: string) =>
      (await srv.request('PUT', `/v2/accounts/${account.id}/users`, { token, data: { username, password: `pw-${username}-1`, first_name: username, last_name: 'Agent', priv_level: 'user' } })).body.data.id;
    a1 = await mk('agent1');
    a2 = await mk('agent2');
    await mk('clerk');
    clerkToken = await srv.userLogin('Roster Co', 'clerk', 'pw-clerk-1');
    queue = (await srv.request('PUT', `/v2/accounts/${account.id}/queues`, { token, data: { name: 'Support' } })).body.data.id;
    other = (await srv.request('PUT', `/v2/accounts/${account.id}/queues`, { token, data: { name: 'Sales' } })).body.data.id;
  });
  afterAll(() => srv?.close());

  it('POST sets the roster (the queue joins its agents\' queues), GET lists it, DELETE empties it', async () => {
    const token = srv.adminToken;
    expect((await srv.request('GET', roster(), { token })).body).toMatchObject({ data: [], page_size: 0 });
    const set = await srv.request('POST', roster(), { token, data: [a1, a2] });
    expect(set.status, set.text).toBe(200);
    // agents by id, as Kazoo's queues/agents_listing view keys them
    expect(set.body.data).toMatchObject({ id: queue, name: 'Support', agents: [a1, a2].sort() });
    await srv.request('POST', roster(other), { token, data: [a1] });
    expect((await srv.request('GET', roster(), { token: clerkToken })).body.data).toEqual([a1, a2].sort());
    expect((await srv.request('GET', `/v2/accounts/${account.id}/users/${a1}`, { token })).body.data.queues.sort()).toEqual([queue, other].sort());
    const shrink = await srv.request('POST', roster(), { token, data: [a2] });
    expect(shrink.body.data.agents).toEqual([a2]);
    expect((await srv.request('GET', `/v2/accounts/${account.id}/users/${a1}`, { token })).body.data.queues).toEqual([other]);
    const cleared = await srv.request('DELETE', roster(), { token });
    expect(cleared.body.data.agents).toEqual([]);
    expect((await srv.request('GET', roster(other), { token })).body.data).toEqual([a1]);
  });

  it('the users changed fire object doc_edited events', async () => {
    const sink = await startSink();
    try {
      await srv.request('PUT', `/v2/accounts/${account.id}/webhooks`, {
        token: srv.adminToken,
        data: { name: 'users', hook: 'object', uri: `${sink.url}/roster`, format: 'json', custom_data: { type: 'user', action: 'doc_edited' } },
      });
      await srv.request('POST', roster(), { token: srv.adminToken, data: [a2] });
      const [req] = await sink.waitFor(1);
      expect(JSON.parse(req.body)).toMatchObject({ id: a2, type: 'user', action: 'doc_edited' });
    } finally {
      await sink.close();
    }
  });

  it('refuses: a plain user, an unknown user or queue, a body that is not a list of ids', async () => {
    const token = srv.adminToken;
    expect((await srv.request('POST', roster(), { token: clerkToken, data: [a1] })).status).toBe(403);
    expect((await srv.request('DELETE', roster(), { token: clerkToken })).status).toBe(403);
    const unknown = await srv.request('POST', roster(), { token, data: [a1, 'e'.repeat(32)] });
    expect(unknown.status).toBe(404);
    expect((await srv.request('GET', roster(), { token })).body.data).toEqual([a2]);
    expect((await srv.request('GET', roster('f'.repeat(32)), { token })).status).toBe(404);
    expect((await srv.request('POST', roster(), { token, data: { agents: [a1] } })).status).toBe(400);
    expect((await srv.request('PUT', roster(), { token, data: [a1] })).status).toBe(405);
    const stranger = await createSubAccount(srv, srv.master.account_id, 'Roster Other');
    expect((await srv.request('GET', roster(), { token: await srv.apiLogin(stranger.apiKey) })).status).toBe(403);
  });
});
