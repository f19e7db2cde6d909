import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';
import { WEBHOOKS_APP_ID } from './service.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** master → Reseller (a reseller) → Customer */
describe('apps store: blacklist, icon, screenshots', () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let customer: { id: string; apiKey: string };
  let crm: string;
  const tmp = tempDir();
  const raw = async (path: string) => {
    const res = await fetch(srv.url + path);
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()), text: '' };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Apps Reseller');
    customer = await createSubAccount(srv, reseller.id, 'Apps Customer');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken });
    writeFileSync(join(tmp.dir, 'icon.png'), PNG);
    writeFileSync(join(tmp.dir, 'one.gif'), GIF);
    writeFileSync(join(tmp.dir, 'two.png'), PNG);
    writeFileSync(join(tmp.dir, 'notes.txt'), 'not an image');
    const added = await runTel([
      'apps', 'add', 'crm', '--label', 'CRM', '--icon', join(tmp.dir, 'icon.png'),
      '--screenshot', join(tmp.dir, 'one.gif'), '--screenshot', join(tmp.dir, 'two.png'), '--db', srv.dbFile, '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    crm = JSON.parse(added.stdout).id;
  });
  afterAll(async () => {
    await srv.close();
    tmp.cleanup();
  });

  it('the webhooks app carries a real PNG icon, served without a token under an account or without one', async () => {
    for (const path of [`/v2/accounts/${customer.id}/apps_store/${WEBHOOKS_APP_ID}/icon`, `/v2/apps_store/${WEBHOOKS_APP_ID}/icon?auth_token=whatever`]) {
      const r = await raw(path);
      expect(r.status, path).toBe(200);
      expect(r.type).toBe('image/png');
      expect(r.bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
      // a 128×128 image: the IHDR's width and height
      expect([r.bytes.readUInt32BE(16), r.bytes.readUInt32BE(20)]).toEqual([128, 128]);
    }
    const app = await srv.request('GET', `/v2/accounts/${customer.id}/apps_store/${WEBHOOKS_APP_ID}`, { token: srv.adminToken });
    expect(app.body.data.icon).toBe('icon');
    expect(app.body.data.screenshots).toBeUndefined();
    // the account is not looked up: an unknown one answers as any other (who has no token learns no ids)
    expect((await raw(`/v2/accounts/${'9'.repeat(32)}/apps_store/${WEBHOOKS_APP_ID}/icon`)).status).toBe(200);
    expect((await raw(`/v2/accounts/${customer.id}/apps_store/${'8'.repeat(32)}/icon`)).status).toBe(404);
  });

  it('an app added with an icon and screenshots serves them, in order; the app names them', async () => {
    expect((await raw(`/v2/accounts/${customer.id}/apps_store/${crm}/icon`)).bytes.equals(PNG)).toBe(true);
    const first = await raw(`/v2/accounts/${customer.id}/apps_store/${crm}/screenshot/0`);
    expect(first).toMatchObject({ status: 200, type: 'image/gif' });
    expect(first.bytes.equals(GIF)).toBe(true);
    expect((await raw(`/v2/apps_store/${crm}/screenshot/1`)).bytes.equals(PNG)).toBe(true);
    expect((await raw(`/v2/apps_store/${crm}/screenshot/2`)).status).toBe(404);
    expect((await raw(`/v2/apps_store/${crm}/screenshot/x`)).status).toBe(404);
    expect((await raw(`/v2/apps_store/${WEBHOOKS_APP_ID}/screenshot/0`)).status).toBe(404);
    const app = await srv.request('GET', `/v2/accounts/${customer.id}/apps_store/${crm}`, { token: srv.adminToken });
    expect(app.body.data).toMatchObject({ icon: 'icon', screenshots: ['screenshot-0', 'screenshot-1'] });
    const bad = await runTel(['apps', 'add', 'notes', '--label', 'Notes', '--icon', join(tmp.dir, 'notes.txt'), '--db', srv.dbFile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a PNG, JPEG or GIF/);
    // removing the app takes its files
    await runTel(['apps', 'remove', 'crm', '--db', srv.dbFile]);
    expect((await raw(`/v2/apps_store/${crm}/screenshot/0`)).status).toBe(404);
    const left = srv.core.db.prepare('SELECT COUNT(*) n FROM doc_attachments WHERE doc_id = ?').get(crm) as { n: number };
    expect(left.n).toBe(0);
    crm = JSON.parse((await runTel(['apps', 'add', 'crm', '--label', 'CRM', '--db', srv.dbFile, '--json'])).stdout).id;
  });

  it('a reseller keeps apps from its customer: the listing, the app, logins and installing no longer offer them', async () => {
    const rToken = await srv.apiLogin(reseller.apiKey);
    const cToken = await srv.apiLogin(customer.apiKey);
    const path = `/v2/accounts/${customer.id}/apps_store/blacklist`;
    expect((await srv.request('GET', path, { token: rToken })).body.data).toEqual({ blacklist: [] });
    const set = await srv.request('POST', path, { token: rToken, data: { blacklist: [crm] } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data).toEqual({ blacklist: [crm] });
    expect((await srv.request('GET', path, { token: rToken })).body.data).toEqual({ blacklist: [crm] });
    // only an account above reads it (Kazoo's validate_blacklist)
    expect((await srv.request('GET', path, { token: cToken })).status).toBe(403);
    const listing = await srv.request('GET', `/v2/accounts/${customer.id}/apps_store`, { token: cToken });
    expect(listing.body.data.map((a: { id: string }) => a.id)).toEqual([WEBHOOKS_APP_ID]);
    expect((await srv.request('GET', `/v2/accounts/${customer.id}/apps_store/${crm}`, { token: cToken })).status).toBe(404);
    expect((await srv.request('PUT', `/v2/accounts/${customer.id}/apps_store/${crm}`, { token: rToken, data: { allowed_users: 'all' } })).status).toBe(403);
    const login = await srv.request('PUT', '/v2/api_auth', { data: { api_key: customer.apiKey } });
    expect(login.body.data.apps.map((a: { id: string }) => a.id)).toEqual([WEBHOOKS_APP_ID]);
    // the reseller's own account still has it
    expect((await srv.request('GET', `/v2/accounts/${reseller.id}/apps_store`, { token: rToken })).body.data).toHaveLength(2);
    // the customer's own admin cannot take the list back; a malformed list is a 400
    expect((await srv.request('POST', path, { token: cToken, data: { blacklist: [] } })).status).toBe(403);
    expect((await srv.request('POST', path, { token: rToken, data: { blacklist: 'crm' } })).status).toBe(400);
    expect((await srv.request('PUT', path, { token: rToken, data: { blacklist: [] } })).status).toBe(405);
    const cleared = await srv.request('POST', path, { token: srv.adminToken, data: { blacklist: [] } });
    expect(cleared.body.data).toEqual({ blacklist: [] });
    expect((await srv.request('GET', `/v2/accounts/${customer.id}/apps_store`, { token: cToken })).body.data).toHaveLength(2);
  });
});
