import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { createAccount } from '../accounts/service.js';

/** A 1×1 PNG and a tiny .ico: real image bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const ICO = Buffer.concat([Buffer.from([0, 0, 1, 0, 1, 0]), Buffer.alloc(16, 7)]);

describe('whitelabel', () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  let clerk: string;
  const doc = (account: string, file = '') => `/v2/accounts/${account}/whitelabel${file ? `/${file}` : ''}`;

  /** Sends a file as the body (fetch, as a browser would). */
  const upload = async (path: string, body: Buffer | string, contentType: string, token = srv.adminToken) => {
    const res = await fetch(srv.url + path, { method: 'POST', headers: { 'X-Auth-Token': token, 'Content-Type': contentType }, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const download = async (path: string, token?: string) => {
    // as a browser fetches it (a CORS request: the answer carries the CORS headers)
    const res = await fetch(srv.url + path, { headers: { Origin: 'http://ui.example.com', ...(token ? { 'X-Auth-Token': token } : {}) } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Reseller');
    // a reseller's admins may claim domains (a super-duper admin takes any)
    const made = createAccount(srv.core, { name: 'Other Reseller' }, { parentId: srv.master.account_id, reseller: true });
    other = { id: made.id, apiKey: made.apiKey };
    await srv.request('PUT', `/v2/accounts/${reseller.id}/users`, { token: srv.adminToken, data: { username: 'clerk', password: 'pw-clerk', first_name: 'F', last_name: 'L', priv_level: 'user' } });
    clerk = await srv.userLogin('Reseller', 'clerk', 'pw-clerk');
  });
  afterAll(() => srv?.close());

  it('a domain no account claimed: 404 with the JSON envelope, no token needed, for the document, logo and icon', async () => {
    for (const path of ['/v2/whitelabel/ui.example.com', '/v2/whitelabel/ui.example.com/logo', '/v2/whitelabel/ui.example.com/icon']) {
      const r = await srv.request('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.body).toMatchObject({ status: 'error', error: '404', message: 'bad_identifier', data: { cause: 'ui.example.com' } });
      expect(r.body.version).toBeUndefined();
    }
    expect((await srv.request('POST', '/v2/whitelabel/ui.example.com', { data: {} })).status).toBe(405);
  });

  it("an account without a whitelabel document: GET is 404 bad_identifier 'whitelabel'", async () => {
    const r = await srv.request('GET', doc(reseller.id), { token: srv.adminToken });
    expect(r.status).toBe(404);
    expect(r.body.data.cause).toBe('whitelabel');
    expect((await srv.request('GET', doc(reseller.id))).status).toBe(401);
  });

  it('PUT creates it (201, defaults filled, id whitelabel); a second PUT is 409; the domain then answers it without a token', async () => {
    const put = await srv.request('PUT', doc(reseller.id), { token: srv.adminToken, data: { company_name: 'Acme Voice', domain: 'UI.Example.com' } });
    expect(put.status).toBe(201);
    expect(put.body.data).toEqual({
      company_name: 'Acme Voice',
      domain: 'UI.Example.com',
      hide_credits: false,
      hide_powered: false,
      hide_registration: false,
      id: 'whitelabel',
    });
    expect((await srv.request('PUT', doc(reseller.id), { token: srv.adminToken, data: { company_name: 'Again' } })).status).toBe(409);
    for (const domain of ['ui.example.com', 'UI.EXAMPLE.COM']) {
      const r = await srv.request('GET', `/v2/whitelabel/${domain}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ company_name: 'Acme Voice', domain: 'UI.Example.com', id: 'whitelabel' });
    }
    expect((await srv.request('GET', doc(reseller.id), { token: clerk })).body.data.company_name).toBe('Acme Voice');
  });

  it('another reseller cannot claim the same domain (400 domain.unique); a field of the wrong type is a 400', async () => {
    const r = await srv.request('PUT', doc(other.id), { token: await srv.apiLogin(other.apiKey), data: { domain: 'ui.example.COM' } });
    expect(r.status).toBe(400);
    expect(r.body.data.domain.unique).toMatchObject({ message: 'White label domain is already in use', cause: 'ui.example.COM' });
    const bad = await srv.request('PUT', doc(other.id), { token: srv.adminToken, data: { domain: 42, hide_powered: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.domain.type).toBeDefined();
    expect(bad.body.data.hide_powered.type).toBeDefined();
  });

  it("POST replaces the stored document with the one sent, its defaults filled, as Kazoo's", async () => {
    const sent = { company_name: 'Acme Voice', domain: 'UI.Example.com', hide_powered: 'true', nav: { help: 'https://help.example.com' } };
    const r = await srv.request('POST', doc(reseller.id), { token: srv.adminToken, data: sent });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ ...sent, hide_powered: true, hide_credits: false, hide_registration: false, id: 'whitelabel' });
  });

  it('a logo uploaded as the image itself is answered as that file, by account and by domain', async () => {
    expect((await download(doc(reseller.id, 'logo'), srv.adminToken)).status).toBe(404);
    const up = await upload(`${doc(reseller.id, 'logo')}?filename=acme.png`, PNG, 'image/png');
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ id: 'whitelabel', company_name: 'Acme Voice' });
    for (const [path, token] of [[doc(reseller.id, 'logo'), srv.adminToken], ['/v2/whitelabel/ui.example.com/logo', undefined]] as const) {
      const got = await download(path, token);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('content-disposition')).toBe('attachment; filename=logo-acme.png');
      expect(got.headers.get('access-control-allow-origin')).toBe('*');
      expect(got.bytes.equals(PNG)).toBe(true);
    }
    // no icon yet: the domain is known, the icon is not
    const icon = await srv.request('GET', '/v2/whitelabel/ui.example.com/icon');
    expect(icon.status).toBe(404);
    expect(icon.body.data.cause).toBe('icon');
  });

  it('Monster UI’s base64 uploads (a data: URL, or bare base64) are decoded and typed', async () => {
    const dataUrl = `data:image/x-icon;base64,${ICO.toString('base64')}`;
    expect((await upload(doc(reseller.id, 'icon'), dataUrl, 'application/x-base64')).status).toBe(200);
    const icon = await download('/v2/whitelabel/ui.example.com/icon');
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect(icon.bytes.equals(ICO)).toBe(true);
    expect(icon.headers.get('content-disposition')).toMatch(/^attachment; filename=icon-uploaded_file_\d+\.ico$/);
    // a new logo replaces the old one; bare base64 is typed from its bytes
    expect((await upload(doc(reseller.id, 'logo'), PNG.toString('base64'), 'application/base64')).status).toBe(200);
    const logo = await download(doc(reseller.id, 'logo'), srv.adminToken);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.bytes.equals(PNG)).toBe(true);
  });

  it('refuses an upload without a file (400), of another type (415), not base64 (400), before any whitelabel (404)', async () => {
    const json = await srv.request('POST', doc(reseller.id, 'logo'), { token: srv.adminToken, data: {} });
    expect(json.status).toBe(400);
    expect(json.body.data.file.required).toBeDefined();
    const svg = await upload(doc(reseller.id, 'logo'), '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml');
    expect(svg.status).toBe(415);
    expect(svg.body.data.accepted).toContain('image/png');
    const ico = await upload(doc(reseller.id, 'logo'), ICO, 'image/x-icon');
    expect(ico.status).toBe(415);
    const garbled = await upload(doc(reseller.id, 'logo'), 'data:image/png;base64,***', 'application/x-base64');
    expect(garbled.status).toBe(400);
    expect(garbled.body.data.file.encoding).toBeDefined();
    const none = await upload(doc(other.id, 'logo'), PNG, 'image/png');
    expect(none.status).toBe(404);
    expect(none.body.data.cause).toBe('whitelabel');
    expect((await upload(doc(reseller.id, 'logo'), PNG, 'image/png', 'bad-token')).status).toBe(401);
  });

  it('a plain user may read it but not change it (403)', async () => {
    expect((await srv.request('POST', doc(reseller.id), { token: clerk, data: { company_name: 'Mine' } })).status).toBe(403);
    expect((await upload(doc(reseller.id, 'logo'), PNG, 'image/png', clerk)).status).toBe(403);
    expect((await srv.request('DELETE', doc(reseller.id), { token: clerk })).status).toBe(403);
    expect((await download(doc(reseller.id, 'logo'), clerk)).status).toBe(200);
  });

  it('DELETE removes the document and its files: the domain is free again', async () => {
    const del = await srv.request('DELETE', doc(reseller.id), { token: srv.adminToken });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: 'whitelabel', company_name: 'Acme Voice', _read_only: { deleted: true } });
    expect((await srv.request('GET', '/v2/whitelabel/ui.example.com')).status).toBe(404);
    expect((await srv.request('GET', '/v2/whitelabel/ui.example.com/logo')).status).toBe(404);
    expect((await srv.request('GET', doc(reseller.id), { token: srv.adminToken })).status).toBe(404);
    const files = srv.core.db.prepare('SELECT count(*) AS n FROM whitelabel_files WHERE account_id = ?').get(reseller.id) as { n: number };
    expect(files.n).toBe(0);
    expect((await srv.request('PUT', doc(other.id), { token: srv.adminToken, data: { domain: 'ui.example.com' } })).status).toBe(201);
  });

  it("an account's whitelabel goes with the account", async () => {
    const leaf = await createSubAccount(srv, other.id, 'Leaf');
    await srv.request('PUT', doc(leaf.id), { token: srv.adminToken, data: { domain: 'leaf.example.com' } });
    await upload(doc(leaf.id, 'logo'), PNG, 'image/png');
    expect((await srv.request('DELETE', `/v2/accounts/${leaf.id}`, { token: srv.adminToken })).status).toBe(200);
    expect((await srv.request('GET', '/v2/whitelabel/leaf.example.com')).status).toBe(404);
    const files = srv.core.db.prepare('SELECT count(*) AS n FROM whitelabel_files WHERE account_id = ?').get(leaf.id) as { n: number };
    expect(files.n).toBe(0);
  });
});
