import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { MASKED } from '../webhooks/service.js';

describe('resources: account and global carriers', () => {
  let srv: TestServer;
  let sub: { id: string; apiKey: string };
  let subToken: string;
  let base: string;
  beforeAll(async () => {
    srv = await startTestServer();
    sub = await createSubAccount(srv, srv.master.account_id, 'Carrier Co');
    subToken = await srv.apiLogin(sub.apiKey);
    base = `/v2/accounts/${sub.id}/resources`;
  });
  afterAll(async () => srv.close());

  it('PUT creates a resource (201) with every default filled in, gateways included', async () => {
    const r = await srv.request('PUT', base, { token: subToken, data: { name: 'Carrier 3', gateways: [{ server: 'sip.example.net' }] } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: 'Carrier 3',
      enabled: true,
      emergency: false,
      weight_cost: 50,
      grace_period: 5,
      flags: [],
      rules: [],
      rules_test: [],
      ignore_flags: false,
      require_flags: false,
      format_from_uri: false,
      from_account_realm: false,
      peer: false,
      type: 'local',
    });
    // Kazoo's `media` refers to the endpoint media schema with no default of its own: not filled
    expect(r.body.data.media).toBeUndefined();
    expect(r.body.data.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.body.data.gateways[0]).toEqual({
      server: 'sip.example.net',
      enabled: true,
      endpoint_type: 'sip',
      port: 5060,
      invite_format: 'route',
      channel_selection: 'ascending',
      force_port: false,
      voipapp_rr: true,
    });
  });

  it('an empty gateways list is fine on creation; a missing one is a 400 naming it', async () => {
    expect((await srv.request('PUT', base, { token: subToken, data: { name: 'Empty', gateways: [] } })).status).toBe(201);
    const r = await srv.request('PUT', base, { token: subToken, data: { name: 'No gateways' } });
    expect(r.status).toBe(400);
    expect(r.body.data.gateways.required.message).toBe('Field is required but missing');
  });

  it('GET lists summaries (id, name, enabled, weight, weight_cost), paged with start_key', async () => {
    for (const name of ['P1', 'P2', 'P3']) {
      await srv.request('PUT', base, { token: subToken, data: { name, gateways: [], weight_cost: 10 } });
    }
    const all = await srv.request('GET', base, { token: subToken });
    expect(all.status).toBe(200);
    const p1 = all.body.data.find((d: { name: string }) => d.name === 'P1');
    expect(Object.keys(p1).sort()).toEqual(['enabled', 'id', 'name', 'weight', 'weight_cost']);
    expect(p1).toMatchObject({ enabled: true, weight: 10, weight_cost: 10 });
    const first = await srv.request('GET', `${base}?page_size=2`, { token: subToken });
    expect(first.body.page_size).toBe(2);
    expect(first.body.next_start_key).toBeTruthy();
    const second = await srv.request('GET', `${base}?page_size=2&start_key=${first.body.next_start_key}`, { token: subToken });
    const ids = [...first.body.data, ...second.body.data].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(4);
  });

  it('GET one, POST replaces, PATCH merges nested objects, DELETE answers the deleted resource', async () => {
    const created = await srv.request('PUT', base, {
      token: subToken,
      data: { name: 'Edit me', gateways: [{ server: 'a.example.net' }], media: { audio: { codecs: ['PCMU'] } } },
    });
    const id = created.body.data.id;
    const got = await srv.request('GET', `${base}/${id}`, { token: subToken });
    expect(got.body.data.name).toBe('Edit me');
    expect(got.body.revision).toMatch(/^1-/);

    const posted = await srv.request('POST', `${base}/${id}`, { token: subToken, data: { ...got.body.data, name: 'Replaced', weight_cost: '20' } });
    expect(posted.status).toBe(200);
    expect(posted.body.data).toMatchObject({ name: 'Replaced', weight_cost: 20, type: 'local' });

    const patched = await srv.request('PATCH', `${base}/${id}`, {
      token: subToken,
      data: { custom_sip_headers: { 'X-Reseller-ID': 'r1' }, media: { video: { codecs: ['H264'] } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.custom_sip_headers).toEqual({ 'X-Reseller-ID': 'r1' });
    expect(patched.body.data.media.audio.codecs).toEqual(['PCMU']);
    expect(patched.body.data.media.video.codecs).toEqual(['H264']);
    expect(patched.body.data.name).toBe('Replaced');

    const del = await srv.request('DELETE', `${base}/${id}`, { token: subToken });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id, name: 'Replaced', _read_only: { deleted: true } });
    expect((await srv.request('GET', `${base}/${id}`, { token: subToken })).status).toBe(404);
  });

  it("a resource posted back with its gateways' passwords masked keeps them", async () => {
    const made = await srv.request('PUT', base, {
      token: subToken,
      data: { name: 'Masked', gateways: [{ server: 'sip.one.example', password: 'one-pass' }, { server: 'sip.two.example', password: 'two-pass' }] },
    });
    expect(made.status, made.text).toBe(201);
    const one = `${base}/${made.body.data.id}`;
    const masked = { ...made.body.data, gateways: made.body.data.gateways.map((g: Record<string, unknown>) => ({ ...g, password: MASKED })) };
    expect((await srv.request('POST', one, { token: subToken, data: { ...masked, gateways: masked.gateways.reverse() } })).status).toBe(200);
    const stored = (await srv.request('GET', one, { token: subToken })).body.data.gateways;
    expect(stored.map((g: Record<string, unknown>) => [g.server, g.password])).toEqual([['sip.two.example', 'two-pass'], ['sip.one.example', 'one-pass']]);
  });

  it('a stale If-Match revision is a 412 (cowboy_rest:if_match/3)', async () => {
    const created = await srv.request('PUT', base, { token: subToken, data: { name: 'Rev', gateways: [] } });
    const id = created.body.data.id;
    await srv.request('PATCH', `${base}/${id}`, { token: subToken, data: { enabled: false } });
    const stale = await srv.request('POST', `${base}/${id}`, {
      token: subToken,
      data: { name: 'Lost update', gateways: [] },
      headers: { 'If-Match': created.body.revision },
    });
    expect(stale.status).toBe(412);
  });

  it('another account cannot see these resources (403), and an unknown id is a 404', async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Stranger');
    const token = await srv.apiLogin(other.apiKey);
    expect((await srv.request('GET', base, { token })).status).toBe(403);
    expect((await srv.request('GET', `${base}/${'f'.repeat(32)}`, { token: subToken })).status).toBe(404);
  });

  it('global resources need a super-duper admin token: 403 for an account admin, 201 for the master', async () => {
    const denied = await srv.request('PUT', '/v2/resources', { token: subToken, data: { name: 'Global', gateways: [] } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('forbidden');
    expect((await srv.request('GET', '/v2/resources', { token: subToken })).status).toBe(403);
    const created = await srv.request('PUT', '/v2/resources', { token: srv.adminToken, data: { name: 'Global', gateways: [] } });
    expect(created.status).toBe(201);
    expect(created.body.data.type).toBe('global');
    const list = await srv.request('GET', '/v2/resources', { token: srv.adminToken });
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([created.body.data.id]);
    // Global and account scopes do not mix.
    expect((await srv.request('GET', `${base}/${created.body.data.id}`, { token: subToken })).status).toBe(404);
    const del = await srv.request('DELETE', `/v2/resources/${created.body.data.id}`, { token: srv.adminToken });
    expect(del.body.data._read_only).toEqual({ deleted: true });
  });

  it('peers need allow_peers in api.resources (Kazoo\'s rule for account resources)', async () => {
    const r = await srv.request('PUT', base, { token: subToken, data: { name: 'Peer', gateways: [], peer: true } });
    expect(r.status).toBe(400);
    expect(r.body.data.peer.forbidden.message).toMatch(/Peers are currently disabled/);
    srv.core.config.setValue('crossbar.resources', 'allow_peers', true);
    const ok = await srv.request('PUT', base, { token: subToken, data: { name: 'Peer', gateways: [], peer: true } });
    expect(ok.status).toBe(201);
  });

  it("a peer's gateways authenticate by an IP no other peer gateway nor IP device uses (Kazoo's 400s)", async () => {
    srv.core.config.setValue('crossbar.resources', 'allow_peers', true);
    const token = srv.adminToken;
    const peer = (name: string, gateways: Record<string, unknown>[], account = sub.id) =>
      srv.request('PUT', `/v2/accounts/${account}/resources`, { token, data: { name, peer: true, gateways } });
    const first = await peer('Peer A', [{ server: '203.0.113.10' }]);
    expect(first.status, first.text).toBe(201);
    const serverTaken = { 'gateways.1.server': { unique: { message: 'Gateway server ip is already in use', cause: 1 } } };
    const taken = await peer('Peer B', [{ server: '203.0.113.20' }, { server: '203.0.113.10' }]);
    expect(taken.status).toBe(400);
    expect(taken.body.data).toEqual(serverTaken);
    // in another account too: Kazoo's sip_auth is the whole system's
    const other = await createSubAccount(srv, srv.master.account_id, 'Other Carrier Co');
    expect((await peer('Peer B', [{ server: '203.0.113.20' }, { server: '203.0.113.10' }], other.id)).body.data).toEqual(serverTaken);
    // a host name cannot peer; an inbound_ip is checked in place of the server
    expect((await peer('Peer C', [{ server: 'sip.example.net' }])).body.data).toEqual({
      'gateways.0.server': { required: { message: 'Gateway server must be an IP when peering with the resource', cause: 0 } },
    });
    expect((await peer('Peer C', [{ server: 'sip.example.net', inbound_ip: '203.0.113.10' }])).body.data).toEqual({
      'gateways.0.inbound_ip': { unique: { message: 'Gateway inbound ip is already in use', cause: 0 } },
    });
    const inbound = await peer('Peer C', [{ server: '203.0.113.10', inbound_ip: '203.0.113.30' }]);
    expect(inbound.status, inbound.text).toBe(201);
    expect((await peer('Peer D', [{ server: '203.0.113.30' }])).status).toBe(400);
    // a device authenticated by IP holds its address
    const device = await srv.request('PUT', `/v2/accounts/${other.id}/devices`, { token, data: { name: 'Trunk PBX', sip: { method: 'ip', ip: '198.51.100.5' } } });
    expect(device.status, device.text).toBe(201);
    expect((await peer('Peer E', [{ server: '198.51.100.5' }])).body.data['gateways.0.server'].unique).toBeDefined();
    // neither a resource that does not peer nor a global one is checked
    expect((await srv.request('PUT', base, { token, data: { name: 'Not a peer', gateways: [{ server: '203.0.113.10' }] } })).status).toBe(201);
    expect((await srv.request('PUT', '/v2/resources', { token, data: { name: 'Global peer', peer: true, gateways: [{ server: '203.0.113.10' }] } })).status).toBe(201);
    // a peer keeps its own address; disabled, no longer a peer, or deleted, it frees it
    const a = `${base}/${first.body.data.id}`;
    expect((await srv.request('POST', a, { token, data: { name: 'Peer A', peer: true, gateways: [{ server: '203.0.113.10' }] } })).status).toBe(200);
    await srv.request('PATCH', a, { token, data: { enabled: false } });
    expect((await peer('Peer F', [{ server: '203.0.113.10' }])).status).toBe(201);
    // Peer F holds it now: Peer A may not take it back
    expect((await srv.request('PATCH', a, { token, data: { enabled: true } })).body.data).toEqual({
      'gateways.0.server': { unique: { message: 'Gateway server ip is already in use', cause: 0 } },
    });
    const f = (await srv.request('GET', base, { token })).body.data.find((r: { name: string }) => r.name === 'Peer F');
    await srv.request('DELETE', `${base}/${f.id}`, { token });
    expect((await srv.request('PATCH', a, { token, data: { enabled: true } })).status).toBe(200);
    await srv.request('PATCH', a, { token, data: { peer: false } });
    expect((await peer('Peer G', [{ server: '203.0.113.10' }])).status).toBe(201);
    // the schema first: a document it refuses gets its errors only, as Kazoo checks peers once it fits
    expect((await peer('Peer H', [{ server: '' }])).body.data).toEqual({ 'gateways.0.server': expect.objectContaining({ minLength: expect.any(Object) }) });
  });

  it('deprecated global_resources and local_resources still work, with a Deprecation header and a log line', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const local = await srv.request('PUT', `/v2/accounts/${sub.id}/local_resources`, { token: subToken, data: { name: 'Old style', gateways: [] } });
      expect(local.status).toBe(201);
      expect(local.headers.get('deprecation')).toBe('true');
      expect(local.headers.get('warning')).toMatch(/local_resources is deprecated/);
      const same = await srv.request('GET', `${base}/${local.body.data.id}`, { token: subToken });
      expect(same.body.data.name).toBe('Old style');
      const global = await srv.request('GET', '/v2/global_resources', { token: srv.adminToken });
      expect(global.status).toBe(200);
      expect(global.headers.get('deprecation')).toBe('true');
      const missing = await srv.request('GET', `/v2/global_resources/${'e'.repeat(32)}`, { token: srv.adminToken });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('deprecation')).toBe('true');
      expect((await srv.request('GET', '/v2/global_resources', { token: subToken })).status).toBe(403);
      const underAccount = await srv.request('GET', `/v2/accounts/${sub.id}/global_resources`, { token: srv.adminToken });
      expect(underAccount.status).toBe(200);
      expect(underAccount.body.data).toEqual(global.body.data);
      expect(underAccount.headers.get('link')).toBe('</v2/resources>; rel="successor-version"');
    } finally {
      spy.mockRestore();
    }
    expect(lines.some((l) => l.includes('deprecated endpoint local_resources'))).toBe(true);
    expect(lines.some((l) => l.includes('deprecated endpoint global_resources'))).toBe(true);
  });
});
