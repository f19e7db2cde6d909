import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { userToken } from '../../../test/helpers/tenants.js';
import { newSecret } from '../../delivery/sign.js';
import { autoDisableHook, findHook } from './store.js';

describe('account webhooks through the API: who changes a signed hook, listings, revisions, bulk re-enable', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let base: string;
  let clerk: string;
  let n = 0;
  const token = () => srv.adminToken;
  const route = () => `/w${++n}`;
  const on = (path: string) => (r: SinkRequest) => r.path === path;

  async function hook(data: Record<string, unknown>, accountId = account): Promise<string> {
    const r = await srv.request('PUT', `/v2/accounts/${accountId}/webhooks`, { token: token(), data: { name: `hook ${++n}`, hook: 'channel_create', format: 'json', ...data } });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  }
  const call = async (accountId = account) =>
    expect((await srv.request('PUT', `/v2/accounts/${accountId}/simulations`, { token: token(), data: { kind: 'call', answer: false } })).status).toBe(201);

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    account = (await createSubAccount(srv, srv.master.account_id, 'Routes Co')).id;
    base = `/v2/accounts/${account}/webhooks`;
    clerk = await userToken(srv, account, 'Routes Co', 'clerk', 'user');
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('a plain user may rename a signed hook but not repoint it: the 403 names what needs an admin', async () => {
    const id = await hook({ uri: 'https://crm.example.com/hook', secret: newSecret() });
    const renamed = await srv.request('PATCH', `${base}/${id}`, { token: clerk, data: { name: 'CRM renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    const repointed = await srv.request('PATCH', `${base}/${id}`, { token: clerk, data: { uri: 'https://evil.example.com/hook', http_verb: 'put' } });
    expect(repointed.status).toBe(403);
    expect(repointed.body.data.cause).toBe('changing uri, http_verb of a signed webhook needs an admin of the account');
    expect(findHook(srv.core, account, id)!.doc).toMatchObject({ uri: 'https://crm.example.com/hook', http_verb: 'post', name: 'CRM renamed' });
    // an unsigned hook is open to its users
    const open = await hook({ uri: 'https://crm.example.com/open' });
    expect((await srv.request('PATCH', `${base}/${open}`, { token: clerk, data: { uri: 'https://crm.example.com/moved' } })).status).toBe(200);
  });

  it('the listing filters each hook whole: by a field the summary leaves out, and by its private type', async () => {
    const filtersAccount = (await createSubAccount(srv, srv.master.account_id, 'Filters Co')).id;
    const put = await hook({ uri: 'https://crm.example.com/put', http_verb: 'put' }, filtersAccount);
    const post = await hook({ uri: 'https://crm.example.com/post' }, filtersAccount);
    const at = (q: string) => srv.request('GET', `/v2/accounts/${filtersAccount}/webhooks?${q}`, { token: token() });
    const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((h) => h.id);
    expect(ids(await at('filter_http_verb=put'))).toEqual([put]);
    expect(ids(await at('filter_pvt_type=webhook'))).toEqual([put, post]);
    expect(ids(await at('filter_pvt_type=device'))).toEqual([]);
  });

  it('the listing goes on page by page from next_start_key', async () => {
    const pagedAccount = (await createSubAccount(srv, srv.master.account_id, 'Pages Co')).id;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await hook({ uri: `https://crm.example.com/p${i}` }, pagedAccount));
    const seen: string[] = [];
    let key: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const r = await srv.request('GET', `/v2/accounts/${pagedAccount}/webhooks?page_size=2${key ? `&start_key=${encodeURIComponent(key)}` : ''}`, { token: token() });
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.data.map((h: { id: string }) => h.id));
      key = r.body.next_start_key;
      if (!key) break;
    }
    expect(seen).toEqual(made);
  });

  it("a GET answers the hook's revision: sent back as If-Match it is taken, a stale one is a 412; a bulk re-enable gives the next one", async () => {
    const id = await hook({ uri: 'https://crm.example.com/rev' });
    const got = await srv.request('GET', `${base}/${id}`, { token: token() });
    expect(got.body.revision).toBe(findHook(srv.core, account, id)!.rev);
    const patched = await srv.request('PATCH', `${base}/${id}`, { token: token(), data: { name: 'with rev' }, headers: { 'If-Match': got.body.revision } });
    expect(patched.status, patched.text).toBe(200);
    const stale = await srv.request('DELETE', `${base}/${id}`, { token: token(), headers: { 'If-Match': got.body.revision } });
    expect(stale.status).toBe(412);
    expect(findHook(srv.core, account, id)).toBeDefined();

    autoDisableHook(srv.core, id, 'too many failed deliveries');
    const before = (await srv.request('GET', `${base}/${id}`, { token: token() })).body.revision;
    expect((await srv.request('PATCH', base, { token: token(), data: { 're-enable': true } })).status).toBe(200);
    const after = await srv.request('GET', `${base}/${id}`, { token: token() });
    expect(after.body.data.enabled).toBe(true);
    expect(after.body.revision).not.toBe(before);
    expect(after.body.revision).toBe(findHook(srv.core, account, id)!.rev);
  });

  it('a hook turned back on by a bulk re-enable fires on the next event', async () => {
    const eventsAccount = (await createSubAccount(srv, srv.master.account_id, 'Events Co')).id;
    const path = route();
    const id = await hook({ uri: `${sink.url}${path}` }, eventsAccount);
    autoDisableHook(srv.core, id, 'too many failed deliveries');
    // the disabled hook is read for an event, and not sent to
    await call(eventsAccount);
    expect(srv.core.db.prepare('SELECT count(*) AS n FROM outbox WHERE source_id = ?').get(id)).toEqual({ n: 0 });
    expect((await srv.request('PATCH', `/v2/accounts/${eventsAccount}/webhooks?re-enable=true`, { token: token() })).status).toBe(200);
    await call(eventsAccount);
    const [got] = await sink.waitFor(1, { filter: on(path) });
    expect(JSON.parse(got.body)).toMatchObject({ hook_event: 'channel_create', account_id: eventsAccount });
  });

  it('bulk re-enable takes re-enable from the envelope, and refuses none on descendants, or one that is not true', async () => {
    const viaEnvelope = await srv.request('PATCH', base, { token: token(), envelope: { 're-enable': true }, data: {} });
    expect(viaEnvelope.status, viaEnvelope.text).toBe(200);
    expect(viaEnvelope.body.data).toBe('hooks updated');
    const none = await srv.request('PATCH', `/v2/accounts/${account}/descendants/webhooks`, { token: token(), data: {} });
    expect(none.status).toBe(400);
    expect(none.body.data['re-enable'].required.message).toBe('re-enable is required to patch collections');
    const no = await srv.request('PATCH', base, { token: token(), data: { 're-enable': 'no' } });
    expect(no.status).toBe(400);
    expect(no.body.data['re-enable'].enum).toMatchObject({ message: 'Value not found in enumerated list of values', target: [true] });
  });

  it('the samples are listed under an account too', async () => {
    const r = await srv.request('GET', `${base}/samples`, { token: token() });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(expect.arrayContaining(['webhooks_channel_create', 'webhooks_object', 'webhooks_notifications']));
    expect(r.body.data).toEqual((await srv.request('GET', '/v2/webhooks/samples')).body.data);
  });
});
