import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';
import { WEBHOOKS_APP_ID } from './service.js';

describe('tel apps … on the database file, beside a running server', () => {
  let srv: TestServer;
  let shop: string;
  const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile]);

  beforeAll(async () => {
    srv = await startTestServer();
    shop = (await createSubAccount(srv, srv.master.account_id, 'Apps Shop')).id;
  });
  afterAll(() => srv?.close());

  it('list shows the webhooks app every database offers', async () => {
    const human = await tel('apps', 'list');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/ID\s+NAME\s+LABEL\s+ALLOWED_USERS\s+MASQUERADABLE\s+API_URL/);
    expect(human.stdout).toMatch(new RegExp(`${WEBHOOKS_APP_ID}\\s+webhooks\\s+Webhooks\\s+all\\s+true\\s+\\(this server\\)`));
    const json = JSON.parse((await tel('apps', 'list', '--json')).stdout);
    expect(json).toEqual([expect.objectContaining({ id: WEBHOOKS_APP_ID, name: 'webhooks', allowed_users: 'all', masqueradable: true })]);
    expect(json[0].api_url).toBeUndefined();
  });

  it('add puts an app in the catalogue that the API then offers; remove takes it out of every account', async () => {
    const added = await tel(
      'apps', 'add', 'crm', '--label', 'CRM', '--description', 'Customer records', '--api-url', 'https://api.example.com/v2/',
      '--tags', 'reseller, developer', '--allowed-users', 'admins', '--no-masqueradable', '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    const app = JSON.parse(added.stdout);
    expect(app).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: 'crm',
      i18n: { 'en-US': { label: 'CRM', description: 'Customer records' } },
      api_url: 'https://api.example.com/v2/',
      tags: ['reseller', 'developer'],
      allowed_users: 'admins',
      masqueradable: false,
    });

    const listed = await srv.request('GET', `/v2/accounts/${shop}/apps_store`, { token: srv.adminToken });
    expect(listed.body.data.map((a: any) => a.name)).toEqual(['webhooks', 'crm']);
    expect(listed.body.data[1]).toMatchObject({ id: app.id, api_url: 'https://api.example.com/v2/', masqueradable: false });
    // the catalogue's allowed_users says who may use it until the account installs it; the store shows an installed app's only
    expect(listed.body.data[1].allowed_users).toBeUndefined();
    expect((await srv.request('PUT', `/v2/accounts/${shop}/apps_store/${app.id}`, { token: srv.adminToken, data: { allowed_users: 'all' } })).status).toBe(201);
    expect((await srv.request('GET', `/v2/accounts/${shop}/apps_store`, { token: srv.adminToken })).body.data[1].allowed_users).toBe('all');
    // on the master account it is installed for those its allowed_users names, as on a master made after it:
    // Monster UI's launcher offers its admins the app (it lists the store's apps whose allowed_users takes the user)
    const master = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/apps_store`, { token: srv.adminToken });
    expect(master.body.data.find((a: any) => a.name === 'crm')).toMatchObject({ id: app.id, allowed_users: 'admins', users: [] });

    const removed = await tel('apps', 'remove', 'crm');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed crm (${app.id}) from the catalogue.`);
    expect((await srv.request('GET', `/v2/accounts/${shop}/apps_store`, { token: srv.adminToken })).body.data.map((a: any) => a.name)).toEqual(['webhooks']);
    expect((await srv.request('GET', `/v2/accounts/${shop}/apps_store/${app.id}`, { token: srv.adminToken })).status).toBe(404);
    const rows = srv.core.db.prepare('SELECT count(*) AS n FROM account_apps WHERE app_id = ?').get(app.id) as { n: number };
    expect(rows.n).toBe(0);
  });

  it('the webhooks app can be removed by id (the API stops offering it) and added back under its id', async () => {
    expect((await tel('apps', 'remove', WEBHOOKS_APP_ID)).code).toBe(0);
    expect((await srv.request('GET', `/v2/accounts/${shop}/apps_store`, { token: srv.adminToken })).body.data).toEqual([]);
    const again = await tel('apps', 'add', 'webhooks', '--label', 'Webhooks', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).id).toBe(WEBHOOKS_APP_ID);
  });

  it('refuses a used name, a bad URL or name (exit 1) and a value outside a fixed set (exit 2)', async () => {
    const dup = await tel('apps', 'add', 'webhooks', '--label', 'Again');
    expect(dup.code).toBe(1);
    expect(dup.stderr.trim()).toBe('Refused: name: An app of this name is already in the catalogue.');
    const bad = await tel('apps', 'add', 'Bad Name', '--label', 'X', '--api-url', 'not a url');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Refused: .*name.*api_url|^Refused: .*api_url.*name/);
    const who = await tel('apps', 'add', 'x', '--label', 'X', '--allowed-users', 'everyone');
    expect(who.code).toBe(2);
    expect(who.stderr).toMatch(/--allowed-users .*all, admins, specific/);
    const gone = await tel('apps', 'remove', 'nothing-like-it');
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe('Not found: nothing-like-it.');
  });

  it('needs a database that exists', async () => {
    const tmp = tempDir();
    try {
      const r = await runTel(['apps', 'list', '--db', `${tmp.dir}/none.db`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^No database at /);
    } finally {
      tmp.cleanup();
    }
  });
});
