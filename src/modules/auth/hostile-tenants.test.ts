import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';
import { requestFrom as from, userToken } from '../../../test/helpers/tenants.js';
import { closeCore, openCore } from '../../core.js';
import { startApi } from '../../http/app.js';
import { createAccount } from '../accounts/service.js';
import { WEBHOOKS_APP_ID } from '../apps-store/service.js';
import { MASKED } from '../webhooks/service.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=';
/** A 1×1 PNG: real image bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * The hostile-tenant review, row by row, over HTTP (rows 3, 6's outputs, 12 and the timers of row 1
 * run real processes: test/hostile-*.test.ts, test/sink-hostile.test.ts). TA: an admin of account
 * A; TU: a plain user of A; TA1: an admin of A1, a child of A; TB: an admin of B, A's sibling.
 */
describe('what a plain user, a sub-account admin or another tenant must not be able to do', () => {
  let srv: TestServer;
  let sink: Sink;
  let A: { id: string; apiKey: string };
  let A1: { id: string; apiKey: string };
  let B: { id: string; apiKey: string };
  const t = { TA: '', TU: '', TA1: '', TB: '' };

  const user = (account: string, name: string, username: string, priv_level: 'admin' | 'user') => userToken(srv, account, name, username, priv_level);

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    A = await createSubAccount(srv, srv.master.account_id, 'Tenant A');
    A1 = await createSubAccount(srv, A.id, 'Tenant A1');
    B = await createSubAccount(srv, srv.master.account_id, 'Tenant B');
    t.TA = await user(A.id, 'Tenant A', 'ta', 'admin');
    t.TU = await user(A.id, 'Tenant A', 'tu', 'user');
    t.TA1 = await user(A1.id, 'Tenant A1', 'ta1', 'admin');
    t.TB = await user(B.id, 'Tenant B', 'tb', 'admin');
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  const hooks = (account: string, id = '') => `/v2/accounts/${account}/webhooks${id ? `/${id}` : ''}`;
  const config = (account: string) => `/v2/accounts/${account}/configs/webhooks`;

  describe('1: no timer longer than a day, no pace slower than one try in 100 s', () => {
    it('a hook rate under 0.01/s is a 400; 0.01 is taken', async () => {
      const slow = await srv.request('PUT', hooks(A.id), { token: t.TU, data: { name: 'slow', uri: `${sink.url}/slow`, hook: 'channel_create', rate_limit_per_s: 1e-7 } });
      expect(slow.status).toBe(400);
      expect(slow.body.data.rate_limit_per_s.minimum).toMatchObject({ target: 0.01 });
      const ok = await srv.request('PUT', hooks(A.id), { token: t.TU, data: { name: 'slowest', uri: `${sink.url}/slow`, hook: 'channel_create', rate_limit_per_s: 0.01 } });
      expect(ok.status).toBe(201);
    });

    it('delays over a day are refused in an account config, the system webhooks category and api.resources', async () => {
      const account = await srv.request('PATCH', config(A.id), { token: t.TA, data: { retry_base_delay_ms: 3_000_000_000 } });
      expect(account.status).toBe(400);
      expect(account.body.data.retry_base_delay_ms.maximum).toMatchObject({ target: 86_400_000 });
      expect((await srv.request('PATCH', config(A.id), { token: t.TA, data: { retry_max_delay_ms: 86_400_000 } })).status).toBe(200);
      const system = await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: { request_timeout_ms: 3_000_000_000 } } });
      expect(system.status).toBe(400);
      expect(Object.keys(system.body.data)).toEqual(['default.request_timeout_ms']);
      const jobs = await srv.request('POST', '/v2/system_configs/api.resources', { token: srv.adminToken, data: { default: { job_poll_interval_ms: 1e10 } } });
      expect(jobs.status).toBe(400);
      expect((await srv.request('GET', '/v2/system_configs/webhooks', { token: srv.adminToken })).status).toBe(404);
    });
  });

  describe("2: an account's configuration is changed by its admins", () => {
    it('a plain user reads configs/webhooks but may not PUT, POST, PATCH or DELETE it', async () => {
      expect((await srv.request('GET', config(A.id), { token: t.TU })).status).toBe(200);
      for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
        const r = await srv.request(method, config(A.id), { token: t.TU, data: { attempt_failure_count: 100 } });
        expect(r.status, method).toBe(403);
        expect(r.body.data.cause).toMatch(/admin of the account/);
      }
      expect((await srv.request('GET', config(A.id), { token: t.TU })).body.data.attempt_failure_count).toBe(6);
      expect((await srv.request('PATCH', config(A.id), { token: t.TA, data: { attempt_failure_count: 3 } })).status).toBe(200);
      expect((await srv.request('PATCH', config(A1.id), { token: t.TA, data: { attempt_failure_count: 4 } })).status).toBe(200);
    });
  });

  describe('6: names hold no control characters', () => {
    it.each([
      ['a hook', (a: string) => hooks(a), { uri: 'http://127.0.0.1:9/x', hook: 'channel_create' }, 'name'],
      ['a device', (a: string) => `/v2/accounts/${a}/devices`, {}, 'name'],
      ['a queue', (a: string) => `/v2/accounts/${a}/queues`, {}, 'name'],
      ['a sub-account', (a: string) => `/v2/accounts/${a}`, {}, 'name'],
    ])('%s named with terminal escapes is a 400', async (_what, path, rest, field) => {
      for (const evil of ['crm\u001b]0;PWNED\u0007', 'csi\u009b2J', 'del\u007f', 'line\nbreak']) {
        const r = await srv.request('PUT', path(A.id), { token: t.TA, data: { ...rest, [field]: evil } });
        expect(r.status, JSON.stringify(evil)).toBe(400);
        expect(r.body.data[field].wrong_format).toMatchObject({ format: 'printable', message: 'Value must not hold control characters' });
      }
    });

    it("a user's username and names, a resource's name, a whitelabel company name: the same", async () => {
      const u = await srv.request('PUT', `/v2/accounts/${A.id}/users`, { token: t.TA, data: { username: 'x\u001b[2J', first_name: 'y\u0007', last_name: 'Z', password: 'pw-xx-1' } });
      expect(Object.keys(u.body.data).sort()).toEqual(['first_name', 'username']);
      const res = await srv.request('PUT', `/v2/accounts/${A.id}/resources`, { token: t.TA, data: { name: 'gw\u001b[2J', gateways: [{ server: 'sip.example' }] } });
      expect(res.status).toBe(400);
      expect(res.body.data.name.wrong_format).toBeDefined();
      const wl = await srv.request('PUT', `/v2/accounts/${A.id}/whitelabel`, { token: t.TA, data: { company_name: 'Co\u009b2J' } });
      expect(wl.status).toBe(400);
    });
  });

  describe('7: whitelabel domains are claimed by resellers and super-duper admins; links are http(s)', () => {
    let reseller: { id: string; admin: string };
    let customer: string;

    beforeAll(async () => {
      const r = createAccount(srv.core, { name: 'Reseller R' }, { parentId: srv.master.account_id, reseller: true });
      reseller = { id: r.id, admin: await user(r.id, 'Reseller R', 'radmin', 'admin') };
      customer = (await createSubAccount(srv, r.id, 'Customer of R')).id;
    });

    it("a grandchild's admin cannot claim a domain (the login page everyone sees), nor a plain account's admin", async () => {
      const r = await srv.request('PUT', `/v2/accounts/${A1.id}/whitelabel`, { token: t.TA1, data: { domain: '127.0.0.1', company_name: 'Mine' } });
      expect(r.status).toBe(403);
      expect(r.body.data.cause).toMatch(/reseller or a super-duper admin/);
      expect((await srv.request('PUT', `/v2/accounts/${A.id}/whitelabel`, { token: t.TA, data: { domain: 'a.example.com' } })).status).toBe(403);
      expect((await srv.request('GET', '/v2/whitelabel/127.0.0.1')).status).toBe(404);
      // without a domain, an account admin keeps its whitelabel as before
      expect((await srv.request('PUT', `/v2/accounts/${A1.id}/whitelabel`, { token: t.TA1, data: { company_name: 'Mine' } })).status).toBe(201);
    });

    it('nav and port links must be http(s) URLs', async () => {
      for (const link of [{ nav: { help: 'javascript:alert(document.cookie)' } }, { nav: { learn_more: 'data:text/html,x' } }, { port: { terms: 'javascript:x' } }]) {
        const r = await srv.request('POST', `/v2/accounts/${A1.id}/whitelabel`, { token: t.TA1, data: link });
        expect(r.status, JSON.stringify(link)).toBe(400);
      }
      expect((await srv.request('POST', `/v2/accounts/${A1.id}/whitelabel`, { token: t.TA1, data: { nav: { help: 'https://help.example.com/' } } })).status).toBe(200);
    });

    it("a reseller's admin claims a domain for itself or a customer; an ancestor's claim wins; a stranger's is refused", async () => {
      // given to the customer by the super-duper admin, then taken back by the customer's reseller
      expect((await srv.request('PUT', `/v2/accounts/${customer}/whitelabel`, { token: srv.adminToken, data: { domain: 'ui.r.example', company_name: 'C' } })).status).toBe(201);
      const take = await srv.request('PUT', `/v2/accounts/${reseller.id}/whitelabel`, { token: reseller.admin, data: { domain: 'UI.r.example', company_name: 'R' } });
      expect(take.status, take.text).toBe(201);
      expect((await srv.request('GET', '/v2/whitelabel/ui.r.example')).body.data.company_name).toBe('R');
      const left = await srv.request('GET', `/v2/accounts/${customer}/whitelabel`, { token: srv.adminToken });
      expect(left.body.data).toMatchObject({ company_name: 'C' });
      expect(left.body.data.domain).toBeUndefined();
      // the customer (below the owner) cannot take it back, even through a reseller's hands
      const back = await srv.request('POST', `/v2/accounts/${customer}/whitelabel`, { token: reseller.admin, data: { domain: 'ui.r.example' } });
      expect(back.status).toBe(400);
      expect(back.body.data.domain.unique).toBeDefined();
    });

    it('the master (a super-duper admin) takes a domain back from anyone', async () => {
      expect((await srv.request('POST', `/v2/accounts/${A1.id}/whitelabel`, { token: srv.adminToken, data: { domain: 'lab.example' } })).status).toBe(200);
      const master = await srv.request('PUT', `/v2/accounts/${srv.master.account_id}/whitelabel`, { token: srv.adminToken, data: { domain: 'lab.example' } });
      expect(master.status, master.text).toBe(201);
      expect((await srv.request('GET', '/v2/whitelabel/lab.example')).body.data.domain).toBe('lab.example');
      expect((await srv.request('GET', `/v2/accounts/${A1.id}/whitelabel`, { token: t.TA1 })).body.data.domain).toBeUndefined();
    });
  });

  describe('8: an app install keeps who may use the app, nothing of the catalogue', () => {
    it('source_url, api_url and labels sent with an install are dropped; the catalogue answers', async () => {
      const r = await srv.request('PUT', `/v2/accounts/${A1.id}/apps_store/${WEBHOOKS_APP_ID}`, {
        token: t.TA1,
        data: { allowed_users: 'all', source_url: 'https://evil.example/apps', api_url: 'https://evil.example/v2/', i18n: { 'en-US': { label: '<img src=x onerror=alert(1)>' } }, ui_metadata: { ui: 'monster-ui' } },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body.data).toEqual({ allowed_users: 'all', users: [], ui_metadata: { ui: 'monster-ui' }, name: 'webhooks' });
      const app = (await srv.request('GET', `/v2/accounts/${A1.id}/apps_store/${WEBHOOKS_APP_ID}`, { token: t.TA1 })).body.data;
      expect(app.source_url).toBeUndefined();
      expect(app.api_url).toBe(`${srv.url}/v2/`);
      expect(app.i18n['en-US'].label).toBe('Webhooks');
      const login = await srv.request('PUT', '/v2/user_auth', { data: { credentials: md5('ta1:pw-ta1-1'), account_name: 'Tenant A1' } });
      expect(JSON.stringify(login.body.data.apps)).not.toContain('evil.example');
    });
  });

  describe("9: a signed hook's uri, custom_data, verb and format are changed by admins", () => {
    it('a plain user cannot repoint (or add to) the admin’s signed hook, may rename it, and may repoint an unsigned one', async () => {
      const made = await srv.request('PUT', hooks(A.id), { token: t.TA, data: { name: 'Signed', uri: `${sink.url}/admin`, hook: 'channel_create', format: 'json', secret: SECRET } });
      const path = hooks(A.id, made.body.data.id);
      for (const change of [{ uri: 'http://tu.example/steal' }, { custom_data: { injected: 'yes' } }, { http_verb: 'put' }, { format: 'form-data' }]) {
        const r = await srv.request('PATCH', path, { token: t.TU, data: change });
        expect(r.status, JSON.stringify(change)).toBe(403);
        expect(r.body.data.cause).toMatch(/of a signed webhook needs an admin/);
      }
      expect((await srv.request('PATCH', path, { token: t.TU, data: { name: 'Renamed' } })).status).toBe(200);
      // posted back whole (uri masked): unchanged, so allowed
      const seen = (await srv.request('GET', path, { token: t.TU })).body.data;
      expect((await srv.request('POST', path, { token: t.TU, data: { ...seen, enabled: false } })).status).toBe(200);
      expect((await srv.request('GET', path, { token: t.TA })).body.data).toMatchObject({ uri: `${sink.url}/admin`, secret: SECRET });
      expect((await srv.request('PATCH', path, { token: t.TA, data: { uri: `${sink.url}/moved` } })).status).toBe(200);
      const plain = await srv.request('PUT', hooks(A.id), { token: t.TA, data: { name: 'Plain', uri: `${sink.url}/plain`, hook: 'channel_create' } });
      expect((await srv.request('PATCH', hooks(A.id, plain.body.data.id), { token: t.TU, data: { uri: `${sink.url}/elsewhere` } })).status).toBe(200);
    });
  });

  describe('10: carriers are for admins', () => {
    it("a plain user sees a gateway's password masked and may not create, change or delete resources", async () => {
      const made = await srv.request('PUT', `/v2/accounts/${A.id}/resources`, {
        token: t.TA,
        data: { name: 'Carrier', gateways: [{ server: 'sip.carrier.example', username: 'lab', password: 'carrier-pass' }] },
      });
      expect(made.status, made.text).toBe(201);
      const one = `/v2/accounts/${A.id}/resources/${made.body.data.id}`;
      const seen = await srv.request('GET', one, { token: t.TU });
      expect(seen.body.data.gateways[0]).toMatchObject({ server: 'sip.carrier.example', username: 'lab', password: MASKED });
      expect(seen.text).not.toContain('carrier-pass');
      expect((await srv.request('GET', one, { token: t.TA })).body.data.gateways[0].password).toBe('carrier-pass');
      const attempts = [
        ['PUT', `/v2/accounts/${A.id}/resources`, { name: 'Mine', gateways: [{ server: 'sip.tu.example' }] }],
        ['POST', one, { ...seen.body.data, gateways: [{ server: 'sip.tu.example' }] }],
        ['PATCH', one, { gateways: [{ server: 'sip.tu.example' }] }],
        ['DELETE', one, undefined],
        ['PUT', `/v2/accounts/${A.id}/resources/collection`, [{ id: 'x'.repeat(32), name: 'Mine', gateways: [{ server: 'sip.tu.example' }] }]],
        ['PUT', `/v2/accounts/${A.id}/local_resources`, { name: 'Mine', gateways: [{ server: 'sip.tu.example' }] }],
      ] as const;
      for (const [method, path, data] of attempts) {
        expect((await srv.request(method, path, { token: t.TU, data })).status, `${method} ${path}`).toBe(403);
      }
      expect((await srv.request('GET', one, { token: t.TA })).body.data.gateways[0].server).toBe('sip.carrier.example');
      // number jobs stay open to the account's users
      const job = await srv.request('PUT', `/v2/accounts/${A.id}/resources/jobs`, { token: t.TU, data: { resource_id: made.body.data.id, numbers: ['+14155550100'] } });
      expect(job.status).toBe(201);
    });
  });

  describe("11: what a hook's endpoint answers is for admins; private networks can be denied", () => {
    it("the attempt log shows what an endpoint on a private address (this machine's sink) answered to super-duper admins only", async () => {
      const hook = await srv.request('PUT', hooks(B.id), { token: t.TB, data: { name: 'Peek', uri: `${sink.url}/internal-service`, hook: 'channel_create', http_verb: 'get' } });
      expect(hook.status).toBe(201);
      sink.respond((r) => (r.path === '/internal-service' ? { status: 200, headers: { 'X-Internal': 'yes' }, body: 'internal secret page' } : { status: 200 }));
      const clerk = await user(B.id, 'Tenant B', 'tbu', 'user');
      expect((await srv.request('PUT', `/v2/accounts/${B.id}/simulations`, { token: t.TB, data: { kind: 'call', answer: false } })).status).toBe(201);
      await sink.waitFor(1, { filter: (r) => r.path === '/internal-service' });
      let admin: any[] = [];
      for (let i = 0; i < 100 && admin.length === 0; i++) {
        admin = (await srv.request('GET', `${hooks(B.id)}/attempts`, { token: t.TB })).body.data;
        if (admin.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(admin[0]).toMatchObject({ result: 'success', resp_status_code: '200' });
      const system = await srv.request('GET', `${hooks(B.id)}/attempts`, { token: srv.adminToken });
      expect(system.body.data[0].resp_body).toBe('internal secret page');
      expect(system.body.data[0].resp_headers).toMatchObject({ 'x-internal': 'yes' });
      for (const token of [t.TB, clerk]) {
        const seen = await srv.request('GET', `${hooks(B.id)}/attempts`, { token });
        expect(seen.body.data[0]).toMatchObject({ result: 'success', resp_status_code: '200' });
        expect(seen.body.data[0].resp_body).toBeUndefined();
        expect(seen.body.data[0].resp_headers).toBeUndefined();
        expect(seen.text).not.toContain('internal secret page');
      }
    });

    it('with webhooks deny_private_networks, a delivery to a loopback endpoint (by address or by name) fails before a byte is sent', async () => {
      const before = sink.requests.length;
      const set = await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: { deny_private_networks: true } } });
      expect(set.status).toBe(200);
      try {
        const port = new URL(sink.url).port;
        for (const host of ['127.0.0.1', 'localhost']) {
          await srv.request('PUT', hooks(A1.id), { token: t.TA1, data: { name: `Private ${host}`, uri: `http://${host}:${port}/private`, hook: 'channel_create', retries: 0 } });
        }
        expect((await srv.request('PUT', `/v2/accounts/${A1.id}/simulations`, { token: t.TA1, data: { kind: 'call', answer: false } })).status).toBe(201);
        let failed: any[] = [];
        for (let i = 0; i < 100 && failed.length < 2; i++) {
          failed = (await srv.request('GET', `${hooks(A1.id)}/attempts`, { token: t.TA1 })).body.data.filter((a: any) => a.uri.endsWith('/private'));
          if (failed.length < 2) await new Promise((r) => setTimeout(r, 50));
        }
        expect(failed).toHaveLength(2);
        for (const a of failed) expect(a).toMatchObject({ result: 'failure', reason: 'connection error', client_error: expect.stringMatching(/127\.0\.0\.1|::1/) });
        expect(failed[0].client_error).toMatch(/not a public address \(webhooks deny_private_networks\)/);
        expect(sink.requests.slice(before).filter((r) => r.path === '/private')).toHaveLength(0);
      } finally {
        await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: {} } });
      }
    });
  });

  describe('13: whether an account exists is not told to those who may not see it', () => {
    it('an unknown id and a foreign one are both 403 for a tenant; 404 for a super-duper admin', async () => {
      const unknown = 'f'.repeat(32);
      for (const path of [`/v2/accounts/${unknown}`, `/v2/accounts/${unknown}/webhooks`, `/v2/accounts/${unknown}/users`]) {
        expect((await srv.request('GET', path, { token: t.TB })).status, path).toBe(403);
        expect((await srv.request('GET', path.replace(unknown, A.id), { token: t.TB })).status, path).toBe(403);
        expect((await srv.request('GET', path, { token: srv.adminToken })).status, path).toBe(404);
      }
    });
  });

  describe('15: an image is what its type says, and is offered under its extension', () => {
    it('HTML sent as image/png is a 400; a PNG named logo.html is offered as logo-logo.png', async () => {
      expect((await srv.request('PUT', `/v2/accounts/${A.id}/whitelabel`, { token: t.TA, data: { company_name: 'A Co' } })).status).toBe(201);
      const send = (body: Buffer | string, type: string, query = '') =>
        fetch(`${srv.url}/v2/accounts/${A.id}/whitelabel/logo${query}`, { method: 'POST', headers: { 'X-Auth-Token': t.TA, 'Content-Type': type }, body });
      const html = await send('<html><script>alert(document.cookie)</script></html>', 'image/png');
      expect(html.status).toBe(400);
      expect(((await html.json()) as any).data.file.type).toBeDefined();
      const gif = await send(PNG, 'image/gif');
      expect(gif.status).toBe(400);
      expect((await send(PNG, 'image/png', '?filename=logo.html')).status).toBe(200);
      const got = await fetch(`${srv.url}/v2/accounts/${A.id}/whitelabel/logo`, { headers: { 'X-Auth-Token': t.TA } });
      expect(got.headers.get('content-disposition')).toBe('attachment; filename=logo-logo.png');
      expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    });
  });
});

/** Rows 4 and 5: the login throttle, on a server of its own (its counts are the server's). */
describe('4, 5: logins slowed for the guesser, never locked for the right credentials elsewhere', () => {
  let srv: TestServer;
  let api: Awaited<ReturnType<typeof startApi>>;
  let core: ReturnType<typeof openCore>;

  beforeAll(async () => {
    srv = await startTestServer();
    for (const name of ['Reseller-A', 'Other B']) {
      const a = await createSubAccount(srv, srv.master.account_id, name);
      await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token: srv.adminToken, data: { username: 'boss', password: 'pw-boss-1', first_name: 'Bo', last_name: 'Boss', priv_level: 'admin' } });
    }
    expect((await srv.request('POST', '/v2/system_configs/crossbar.auth', { token: srv.adminToken, data: { default: { login_max_failures: 3 } } })).status).toBe(200);
    core = openCore(srv.dbFile);
    api = await startApi(core, '127.0.0.1', 0, { allowedOrigins: ['https://ui.example.com'] });
  });
  afterAll(async () => {
    await api?.close();
    if (core) closeCore(core);
    await srv?.close();
  });

  const login = (address: string, account_name: string, password: string) =>
    from(srv.url, address, 'PUT', '/v2/user_auth', { credentials: md5(`boss:${password}`), account_name });

  it("failures count against the account a name resolves to, however spelled; past them that address's tries wait their turn", async () => {
    for (const name of ['Reseller-A', 'reseller.a', 'Reseller A']) expect((await login('127.0.0.2', name, 'wrong')).status).toBe(401);
    // the budget (3) is spent: the next two tries of this address at this account start a second apart
    const [first, second] = await Promise.all([login('127.0.0.2', 'RESELLER_A', 'wrong'), login('127.0.0.2', 'reseller-a', 'wrong')]);
    expect([first.status, second.status]).toEqual([401, 401]);
    expect(Math.max(first.ms, second.ms)).toBeGreaterThanOrEqual(900);
    // the right password from that address passes once its turn comes: slowed, not refused
    const right = await login('127.0.0.2', 'Reseller-A', 'pw-boss-1');
    expect(right.status).toBe(201);
  });

  it('the right credentials from another address, and another account from the same address, answer at once', async () => {
    for (let i = 0; i < 4; i++) await login('127.0.0.3', 'Reseller-A', `wrong-${i}`);
    const elsewhere = await login('127.0.0.4', 'Reseller-A', 'pw-boss-1');
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.ms).toBeLessThan(800);
    const other = await login('127.0.0.3', 'Other B', 'pw-boss-1');
    expect(other.status).toBe(201);
    expect(other.ms).toBeLessThan(800);
  });

  it("a right login clears its account's count, not its address's: guessing other accounts' passwords stays slowed", async () => {
    const names = ['Reseller-A', 'Other B'];
    for (let i = 1; i <= 8; i++) {
      await createSubAccount(srv, srv.master.account_id, `Spray ${i}`);
      names.push(`Spray ${i}`);
    }
    // three failures an account (its budget) over ten accounts: the address's budget (30) is spent
    for (const name of names) for (let i = 0; i < 3; i++) expect((await login('127.0.0.6', name, `wrong-${i}`)).status).toBe(401);
    const right = await login('127.0.0.6', 'Reseller-A', 'pw-boss-1');
    expect(right.status).toBe(201);
    const next = await login('127.0.0.6', 'Other B', 'wrong-again');
    expect(next.status).toBe(401);
    expect(next.ms).toBeGreaterThanOrEqual(800);
  });

  it('a flood from one address queues four tries at most: the others are answered 429 with Retry-After at once', async () => {
    for (let i = 0; i < 3; i++) await login('127.0.0.5', 'Other B', `wrong-${i}`);
    const flood = await Promise.all(Array.from({ length: 10 }, (_, i) => login('127.0.0.5', 'Other B', `flood-${i}`)));
    const refused = flood.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(Math.max(...refused.map((r) => r.ms))).toBeLessThan(800);
    expect(Number(refused[0].headers['retry-after'])).toBeGreaterThanOrEqual(4);
    expect(refused[0].body.data.cause).toBe('too many failed logins');
    expect(flood.filter((r) => r.status === 401)).toHaveLength(5);
  }, 30_000);

  it('logins answer CORS to pages of this machine and allowed origins only, never *; other routes keep Kazoo’s *', async () => {
    const preflight = (path: string, origin: string) =>
      from(api.url, '127.0.0.1', 'OPTIONS', path, undefined, { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' });
    for (const path of ['/v2/user_auth', '/v2/api_auth']) {
      const evil = await preflight(path, 'https://evil.example');
      expect(evil.status).toBe(200);
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
      expect(evil.headers['access-control-allow-methods']).toBeUndefined();
      for (const origin of ['http://127.0.0.1:3000', 'http://localhost:8080', 'https://ui.example.com']) {
        const ok = await preflight(path, origin);
        expect(ok.headers['access-control-allow-origin'], origin).toBe(origin);
        expect(ok.headers['access-control-allow-methods']).toContain('PUT');
        expect(ok.headers.vary).toBe('Origin');
      }
    }
    const answer = await from(api.url, '127.0.0.1', 'PUT', '/v2/user_auth', { credentials: md5('boss:nope'), account_name: 'Other B' }, { Origin: 'https://evil.example' });
    expect(answer.status).toBe(401);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const other = await preflight('/v2/accounts', 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBe('*');
  });
});
