import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { MASKED } from '../webhooks/service.js';

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

  it("gateway passwords are for the reseller's admins: its customers and their users read them masked; a masked template posted back keeps them", async () => {
    const made = await srv.request('PUT', `${base(r.id)}?local=true`, {
      token: rToken,
      data: {
        template_name: 'Carrier',
        gateways: [
          { server: 'sip.carrier.example', username: 'lab', password: 'carrier-pass' },
          { server: 'sip.backup.example', username: 'lab', password: 'backup-pass' },
        ],
      },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id;
    const created = await srv.request('PUT', `/v2/accounts/${c.id}/users`, {
      token: cToken,
      data: { username: 'clerk', password: 'clerk-pass', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' },
    });
    expect(created.status, created.text).toBe(201);
    const clerk = await srv.userLogin('Template Customer', 'clerk', 'clerk-pass');
    const asCustomer = `${base(c.id)}/${id}`;
    for (const token of [cToken, clerk]) {
      const seen = await srv.request('GET', asCustomer, { token });
      expect(seen.status, seen.text).toBe(200);
      expect(seen.body.data.gateways).toEqual([
        { server: 'sip.carrier.example', username: 'lab', password: MASKED },
        { server: 'sip.backup.example', username: 'lab', password: MASKED },
      ]);
      expect(seen.text).not.toMatch(/carrier-pass|backup-pass/);
    }
    const real = (token: string, path: string) => srv.request('GET', path, { token }).then((a) => a.body.data.gateways.map((g: { password: string }) => g.password));
    expect(await real(rToken, `${base(r.id)}/${id}?local=true`)).toEqual(['carrier-pass', 'backup-pass']);
    // the master account's admin is above the reseller
    expect(await real(srv.adminToken, asCustomer)).toEqual(['carrier-pass', 'backup-pass']);

    // the reseller posts back what a customer read (reordered): the masks mean "unchanged"
    const masked = (await srv.request('GET', asCustomer, { token: cToken })).body.data;
    const own = `${base(r.id)}/${id}?local=true`;
    const posted = await srv.request('POST', own, { token: rToken, data: { ...masked, gateways: [masked.gateways[1], masked.gateways[0]] } });
    expect(posted.status, posted.text).toBe(200);
    expect(await real(rToken, own)).toEqual(['backup-pass', 'carrier-pass']);
    const patched = await srv.request('PATCH', own, { token: rToken, data: { gateways: [masked.gateways[0], { ...masked.gateways[1], password: 'new-pass' }] } });
    expect(patched.status, patched.text).toBe(200);
    expect(await real(rToken, own)).toEqual(['carrier-pass', 'new-pass']);
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
