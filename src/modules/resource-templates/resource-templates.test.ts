import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/** master → R (a reseller) → C (its customer) */
describe('resource templates (/v2/accounts/{id}/resource_templates)', () => {
  let srv: TestServer;
  let r: { id: string; apiKey: string };
  let c: { id: string; apiKey: string };
  let rToken: string;
  let cToken: string;
  const base = (account: string) => `/v2/accounts/${account}/resource_templates`;

  beforeAll(async () => {
    srv = await startTestServer();
    r = await createSubAccount(srv, srv.master.account_id, 'Template Reseller');
    c = await createSubAccount(srv, r.id, 'Template Customer');
    await srv.request('PUT', `/v2/accounts/${r.id}/reseller`, { token: srv.adminToken });
    rToken = await srv.apiLogin(r.apiKey);
    cToken = await srv.apiLogin(c.apiKey);
  });
  afterAll(() => srv?.close());

  it("a reseller keeps its templates (?local=true); its customers read them; list, create, read, update, patch, delete", async () => {
    expect((await srv.request('GET', base(c.id), { token: cToken })).body.data).toEqual([]);
    const made = await srv.request('PUT', `${base(r.id)}?local=true`, {
      token: rToken,
      data: { template_name: 'SIP trunk', name: 'Trunk', gateways: [{ server: 'sip.example' }], classifiers: { did_us: { emergency: false } } },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id;
    expect(made.body.data).toMatchObject({ template_name: 'SIP trunk', gateways: [{ server: 'sip.example' }] });
    const list = await srv.request('GET', base(c.id), { token: cToken });
    expect(list.body.data).toEqual([{ id, name: 'Trunk', template_name: 'SIP trunk', classifiers: { did_us: { emergency: false } } }]);
    expect(list.body.page_size).toBe(1);
    expect((await srv.request('GET', `${base(c.id)}/${id}`, { token: cToken })).body.data).toMatchObject({ id, template_name: 'SIP trunk' });
    const patched = await srv.request('PATCH', `${base(r.id)}/${id}?local=true`, { token: rToken, data: { custom: 'value' } });
    expect(patched.body.data).toMatchObject({ template_name: 'SIP trunk', custom: 'value' });
    const posted = await srv.request('POST', `${base(r.id)}/${id}?local=true`, { token: rToken, data: { template_name: 'Renamed' } });
    expect(posted.body.data).toEqual({ id, template_name: 'Renamed' });
    // the reseller's own account reads the templates of the reseller above it unless it asks for its own
    expect((await srv.request('GET', base(r.id), { token: rToken })).body.data).toEqual([]);
    const del = await srv.request('DELETE', `${base(r.id)}/${id}?local=true`, { token: rToken });
    expect(del.body.data).toMatchObject({ id, _read_only: { deleted: true } });
    expect((await srv.request('GET', `${base(c.id)}/${id}`, { token: cToken })).status).toBe(404);
  });

  it('template_name is required; a customer cannot change its reseller\'s templates', async () => {
    const missing = await srv.request('PUT', `${base(r.id)}?local=true`, { token: rToken, data: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.data.template_name.required).toBeTruthy();
    expect((await srv.request('PUT', base(c.id), { token: cToken, data: { template_name: 't' } })).status).toBe(403);
    expect((await srv.request('PUT', `${base(c.id)}?local=true`, { token: cToken, data: { template_name: 't' } })).status).toBe(403);
    // the master account is the reseller of R: its admin manages them through any account below it
    const byMaster = await srv.request('PUT', base(r.id), { token: srv.adminToken, data: { template_name: 'Master offer' } });
    expect(byMaster.status).toBe(201);
    expect((await srv.request('GET', base(r.id), { token: rToken })).body.data.map((t: { template_name: string }) => t.template_name)).toEqual(['Master offer']);
    const other = await createSubAccount(srv, srv.master.account_id, 'Template Other');
    expect((await srv.request('GET', base(c.id), { token: await srv.apiLogin(other.apiKey) })).status).toBe(403);
  });
});
