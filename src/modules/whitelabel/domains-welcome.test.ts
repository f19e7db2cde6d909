import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const PAGE = '<h1>Welcome to Acme Voice</h1><p>Log in with your extension.</p>';

describe('whitelabel: domains, welcome page, by domain under an account', () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let clerk: string;
  const wl = (tail = '') => `/v2/accounts/${reseller.id}/whitelabel${tail}`;
  const send = async (path: string, body: string, contentType: string, token = srv.adminToken) => {
    const res = await fetch(srv.url + path, { method: 'POST', headers: { 'X-Auth-Token': token, 'Content-Type': contentType }, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const raw = async (path: string, token?: string) => {
    const res = await fetch(srv.url + path, { headers: token ? { 'X-Auth-Token': token } : {} });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Acme Voice');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/users`, { token: srv.adminToken, data: { username: 'clerk', password: 'pw-clerk-1', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' } });
    clerk = await srv.userLogin('Acme Voice', 'clerk', 'pw-clerk-1');
  });
  afterAll(() => srv?.close());

  it('GET …/whitelabel/domains: the system plan with {{domain}} filled in (the account\'s domain, or ?domain=)', async () => {
    const none = await srv.request('GET', wl('/domains'), { token: clerk });
    expect(none.status).toBe(400);
    expect(none.body.data.domain.required).toBeTruthy();
    const asked = await srv.request('GET', wl('/domains?domain=voice.example.com'), { token: clerk });
    expect(asked.status).toBe(200);
    // CNAME, as Kazoo's source spells it (domains.json, kzd_domains:cname/1); whitelabeling.md's
    // examples write CNAM, a typo the source does not share: the source wins
    expect(Object.keys(asked.body.data).sort()).toEqual(['A', 'CNAME', 'MX', 'NAPTR', 'SRV', 'TXT']);
    expect(asked.body.data.CNAME['api.voice.example.com']).toEqual({ mapping: ['api.yourcompany.net'], name: 'API' });
    expect(asked.body.data.SRV['_sip._udp.proxy-east.voice.example.com'].mapping[0]).toBe('10 10 7000 us-east.voice.example.com');
    await srv.request('PUT', wl(), { token: srv.adminToken, data: { company_name: 'Acme', domain: 'Acme.Example.com' } });
    const own = await srv.request('GET', wl('/domains'), { token: clerk });
    expect(Object.keys(own.body.data.A)).toEqual(['us-central.acme.example.com', 'us-east.acme.example.com', 'us-west.acme.example.com']);
    expect((await srv.request('GET', wl('/domains?domain=not a domain'), { token: clerk })).status).toBe(400);
    // no token needed without an account, as the other by-domain lookups
    const open = await srv.request('GET', '/v2/whitelabel/domains?domain=voice.example.com');
    expect(open.body.data).toEqual(asked.body.data);
  });

  it('POST /v2/whitelabel/domains sets the plan (a super-duper admin\'s, checked); POST …/whitelabel/domains tests DNS', async () => {
    const plan = { CNAME: { 'ui.{{domain}}': { mapping: ['ui.tel.example'], name: 'Portal' } }, TXT: {} };
    const sub = await srv.apiLogin(reseller.apiKey);
    expect((await srv.request('POST', '/v2/whitelabel/domains', { token: sub, data: plan })).status).toBe(403);
    const bad = await srv.request('POST', '/v2/whitelabel/domains', { token: srv.adminToken, data: { CNAME: { 'ui.example.com': { mapping: [], name: 'x' } } } });
    expect(bad.status).toBe(400);
    // every record type's hosts are checked (Kazoo checks CNAME's only), another type's (AAAA) too
    for (const data of [{ A: { 'x.{{domain}}': { name: 'no mapping' } } }, { AAAA: { 'x.{{domain}}': { mapping: 'one', name: 'x' } } }]) {
      const r = await srv.request('POST', '/v2/whitelabel/domains', { token: srv.adminToken, data });
      expect(r.status, JSON.stringify(data)).toBe(400);
    }
    const set = await srv.request('POST', '/v2/whitelabel/domains', { token: srv.adminToken, data: plan });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data).toEqual(plan);
    expect((await srv.request('GET', wl('/domains'), { token: clerk })).body.data).toEqual({ CNAME: { 'ui.acme.example.com': { mapping: ['ui.tel.example'], name: 'Portal' } }, TXT: {} });
    expect((await srv.request('POST', wl('/domains'), { token: clerk, data: {} })).status).toBe(403);
    // a domain no DNS knows (.invalid never resolves): each host answered, nothing found
    const tested = await srv.request('POST', wl('/domains?domain=acme.invalid'), { token: sub, data: {} });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toEqual({ CNAME: { 'ui.acme.invalid': { expected: ['ui.tel.example'], actual: [], name: 'Portal' } }, TXT: {} });
  });

  it('the welcome page: an admin uploads HTML, it is answered as HTML (sandboxed), by account and by domain without a token', async () => {
    expect((await raw(wl('/welcome'), clerk)).status).toBe(404);
    expect((await send(wl('/welcome'), PAGE, 'text/html', clerk)).status).toBe(403);
    expect((await send(wl('/welcome'), 'just text', 'text/plain')).status).toBe(415);
    const up = await send(wl('/welcome'), PAGE, 'text/html');
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ id: 'whitelabel', domain: 'Acme.Example.com' });
    for (const [path, token] of [[wl('/welcome'), clerk], ['/v2/whitelabel/acme.example.com/welcome', undefined], [wl('/acme.example.com/welcome'), clerk]] as const) {
      const r = await raw(path, token);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html');
      expect(r.headers.get('content-security-policy')).toBe('sandbox');
      expect(r.text).toBe(PAGE);
    }
  });

  it('GET …/whitelabel/{domain}: the whitelabel that claimed the domain; 404 for one nobody claimed', async () => {
    const r = await srv.request('GET', wl('/acme.example.com'), { token: clerk });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ company_name: 'Acme', id: 'whitelabel' });
    expect((await srv.request('GET', wl('/nobody.example.com'), { token: clerk })).status).toBe(404);
    expect((await srv.request('GET', wl('/acme.example.com/logo'), { token: clerk })).status).toBe(404);
    expect((await srv.request('POST', wl('/acme.example.com'), { token: srv.adminToken, data: {} })).status).toBe(405);
  });
});
