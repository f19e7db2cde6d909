import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../test/helpers/server.js';
import { csvText } from './csv.js';

// Kazoo's request features on every endpoint, each as its Erlang source defines it (the function
// is named in each test): CSV answers, ETag and conditional requests, the verb tunnel, Location,
// JSONP, 415 and the request envelope, and where the last two fall in the order of checks.

describe('request features (api_util, api_resource, crossbar_doc, cowboy_rest)', () => {
  let srv: TestServer;
  let account: string;
  let apiKey: string;
  let token: string;
  const base = () => `/v2/accounts/${account}`;
  const raw = (method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}) =>
    fetch(srv.url + path, { method, headers: { 'X-Auth-Token': token, ...init.headers }, body: init.body });
  const createDevice = async (data: Record<string, unknown>) => {
    const r = await srv.request('PUT', `${base()}/devices`, { token, data });
    if (r.status !== 201) throw new Error(`device: ${r.status} ${r.text}`);
    return r.body.data as Record<string, unknown> & { id: string };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    ({ id: account, apiKey } = await createSubAccount(srv, srv.master.account_id, 'Features Co'));
    token = srv.adminToken;
  });
  afterAll(async () => {
    await srv.close();
  });

  describe('CSV answers (api_resource:to_csv/2, api_util:create_csv_resp_content/2, kz_csv)', () => {
    it('Accept: text/csv on a listing: a header row, the columns in the order their keys first appear, every cell quoted', async () => {
      const owner = (await createSubAccount(srv, account, 'CSV listing')).id;
      const put = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${owner}/devices`, { token, data });
      const a = (await put({ name: 'Desk "A"', device_type: 'sip_device', enabled: true })).body.data.id;
      const b = (await put({ name: 'Desk B', device_type: 'sip_device', enabled: false, mac_address: '00:11:22:33:44:55' })).body.data.id;
      const res = await raw('GET', `/v2/accounts/${owner}/devices`, { headers: { Accept: 'text/csv' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="result.csv"');
      // the rows of Kazoo's devices view (an empty mac_address, flags [] an empty cell), `id` headed ID
      expect(await res.text()).toBe(
        `"ID","name","mac_address","enabled","device_type","flags"\n"${a}","Desk ""A""","","true","sip_device",""\n"${b}","Desk B","00:11:22:33:44:55","false","sip_device",""\n`,
      );
      // kz_csv:jobj_to_file/2 writes a row with the columns known when it is written: the header has them all, an earlier row fewer
      expect(csvText([{ id: 'x', name: 'A' }, { id: 'y', name: 'B', mac_address: 'm' }])).toBe('"ID","name","mac_address"\n"x","A"\n"y","B","m"\n');
    });

    it('?accept=csv on a document: one row, nested keys flattened and joined by _, lists joined by commas', async () => {
      const d = await createDevice({ name: 'Flat', caller_id: { internal: { name: 'Front', number: '100' } }, custom: { list: ['x', 'y'] } });
      const res = await raw('GET', `${base()}/devices/${d.id}?accept=csv`);
      expect(res.status).toBe(200);
      const [header, row] = (await res.text()).split('\n');
      const cells = (line: string) => line.slice(1, -1).split('","');
      const h = cells(header);
      const r = cells(row);
      expect(r[h.indexOf('caller_id_internal_name')]).toBe('Front');
      expect(r[h.indexOf('custom_list')]).toBe('x,y');
      expect(r[h.indexOf('ID')]).toBe(d.id);
    });

    it('paginate=false streams CSV (the rows read twice: the header first), filtered too; nothing to write is a 204', async () => {
      const owner = (await createSubAccount(srv, account, 'CSV stream')).id;
      for (let i = 0; i < 5; i++) await srv.request('PUT', `/v2/accounts/${owner}/devices`, { token, data: { name: `Phone ${i}`, ...(i === 3 ? { mac_address: 'aa:bb:cc:dd:ee:ff' } : {}) } });
      const paged = await (await raw('GET', `/v2/accounts/${owner}/devices?accept=csv&page_size=50`)).text();
      const streamed = await raw('GET', `/v2/accounts/${owner}/devices?accept=csv&paginate=false`);
      expect(streamed.headers.get('transfer-encoding')).toBe('chunked');
      expect(await streamed.text()).toBe(paged);
      const filtered = await (await raw('GET', `/v2/accounts/${owner}/devices?accept=csv&paginate=false&filter_name=Phone%203`)).text();
      expect(filtered.split('\n').filter(Boolean)).toHaveLength(2);
      expect((await raw('GET', `/v2/accounts/${owner}/devices?accept=csv&filter_name=nobody`)).status).toBe(204);
      expect((await raw('GET', `/v2/accounts/${owner}/devices?accept=csv&filter_name=nobody&paginate=false`)).status).toBe(204);
    });

    it("cowboy's negotiation over CONTENT_PROVIDED: JSON unless the preferred range a provided type matches is a CSV one", async () => {
      const type = async (accept: string) => (await raw('GET', `${base()}/devices`, { headers: { Accept: accept } })).headers.get('content-type');
      expect(await type('*/*')).toBe('application/json');
      expect(await type('text/html,application/xhtml+xml,*/*;q=0.8')).toBe('application/json');
      expect(await type('application/json, text/csv')).toBe('application/json');
      expect(await type('text/csv;q=0.9, application/json;q=0.5')).toBe('text/csv');
      expect(await type('text/*')).toBe('text/csv');
    });
  });

  describe('ETag and conditional requests (crossbar_doc:rev_to_etag/1, api_resource:generate_etag/2, cowboy_rest)', () => {
    it("a document's GET carries ETag: its revision; If-None-Match with it is a 304 without a body (if_none_match/3)", async () => {
      const d = await createDevice({ name: 'Tagged' });
      const got = await raw('GET', `${base()}/devices/${d.id}`);
      const body = (await got.json()) as { revision: string };
      expect(got.headers.get('etag')).toBe(`"${body.revision}"`);
      const same = await raw('GET', `${base()}/devices/${d.id}`, { headers: { 'If-None-Match': `"${body.revision}"` } });
      expect(same.status).toBe(304);
      expect(same.headers.get('etag')).toBe(`"${body.revision}"`);
      expect(await same.text()).toBe('');
      expect((await raw('GET', `${base()}/devices/${d.id}`, { headers: { 'If-None-Match': '"1-stale"' } })).status).toBe(200);
      expect((await raw('GET', `${base()}/devices/${d.id}`, { headers: { 'If-None-Match': '*' } })).status).toBe(304);
      // a document answered in pieces (a directory with its users) is tagged as well
      const dir = (await srv.request('PUT', `${base()}/directories`, { token, data: { name: 'Tagged directory' } })).body.data;
      const streamed = await raw('GET', `${base()}/directories/${dir.id}`);
      expect(streamed.headers.get('etag')).toBe(`"${((await streamed.json()) as { revision: string }).revision}"`);
      expect((await raw('GET', `${base()}/directories/${dir.id}`, { headers: { 'If-None-Match': streamed.headers.get('etag')! } })).status).toBe(304);
    });

    it('a stale If-Match is a 412 on POST, PATCH and DELETE (if_match/3), after validation; the current one goes through', async () => {
      const d = await createDevice({ name: 'Guarded' });
      const rev = (await srv.request('GET', `${base()}/devices/${d.id}`, { token })).body.revision;
      const stale = { 'If-Match': '"1-00000000000000000000000000000000"' };
      for (const method of ['POST', 'PATCH', 'DELETE']) {
        const r = await srv.request(method, `${base()}/devices/${d.id}`, { token, data: { name: 'Changed' }, headers: stale });
        expect(r.status, method).toBe(412);
        expect(r.body.message).toBe('precondition_failed');
      }
      // Kazoo validates in resource_exists/2, before cowboy compares the tag: a bad body is still a 400
      const invalid = await srv.request('POST', `${base()}/devices/${d.id}`, { token, data: { name: 5 }, headers: stale });
      expect(invalid.status).toBe(400);
      const ok = await srv.request('POST', `${base()}/devices/${d.id}`, { token, data: { name: 'Changed' }, headers: { 'If-Match': `"${rev}"` } });
      expect(ok.status).toBe(200);
      expect((await srv.request('GET', `${base()}/devices/${d.id}`, { token })).body.data.name).toBe('Changed');
    });

    it('a PUT with any If-Match is a 412: a creation has no revision to match (if_match_must_not_exist/2)', async () => {
      const r = await srv.request('PUT', `${base()}/devices`, { token, data: { name: 'Never' }, headers: { 'If-Match': '*' } });
      expect(r.status).toBe(412);
      const names = (await srv.request('GET', `${base()}/devices?filter_name=Never`, { token })).body.data;
      expect(names).toEqual([]);
    });
  });

  describe('the verb tunnel (api_util:get_http_verb/2, api_resource:determine_http_verb/2)', () => {
    it('POST ?verb=DELETE deletes; {"data":…, "verb":"PUT"} creates (201, Location); both routed as the verb they stand for', async () => {
      const d = await createDevice({ name: 'Tunnelled' });
      const del = await srv.request('POST', `${base()}/devices/${d.id}?verb=delete`, { token });
      expect(del.status).toBe(200);
      expect(del.body.data._read_only).toEqual({ deleted: true });
      expect((await srv.request('GET', `${base()}/devices/${d.id}`, { token })).status).toBe(404);

      const put = await srv.request('POST', `${base()}/devices`, { token, envelope: { verb: 'PUT' }, data: { name: 'Made by POST' } });
      expect(put.status).toBe(201);
      expect(put.headers.get('location')).toBe(put.body.data.id);
      // a verb no route of the path answers is a 405
      const other = await srv.request('POST', `${base()}/devices?verb=patch`, { token, data: {} });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('GET, PUT');
      expect((await srv.request('POST', `${base()}/devices/${d.id}?verb=explode`, { token })).status).toBe(405);
    });

    it('restrictions judge the tunnelled verb: a token that may POST devices may not DELETE one through POST', async () => {
      const d = await createDevice({ name: 'Kept' });
      const restricted = await srv.apiLogin(apiKey, { post: [`accounts/${account}/devices/#`], get: [`accounts/${account}/devices/#`] });
      expect((await srv.request('POST', `${base()}/devices/${d.id}?verb=DELETE`, { token: restricted })).status).toBe(403);
      expect((await srv.request('POST', `${base()}/devices/${d.id}`, { token: restricted, data: { name: 'Kept still' } })).status).toBe(200);
      // another method's verb is no tunnel: a GET stays a GET
      expect((await srv.request('GET', `${base()}/devices/${d.id}?verb=DELETE`, { token })).status).toBe(200);
      expect((await srv.request('GET', `${base()}/devices/${d.id}`, { token })).status).toBe(200);
    });
  });

  it('Location on a creation is the new document’s id (crossbar_doc:add_location_header/2)', async () => {
    const r = await srv.request('PUT', `${base()}/devices`, { token, data: { name: 'Located' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(r.body.data.id);
  });

  describe('JSONP (api_util:create_resp_content/2)', () => {
    it('?jsonp=cb answers cb(envelope); as application/javascript, errors too; a name that is not one is a 400', async () => {
      const d = await createDevice({ name: 'Scripted' });
      const ok = await raw('GET', `${base()}/devices/${d.id}?jsonp=lab.show`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('application/javascript');
      const text = await ok.text();
      expect(text.startsWith('lab.show({')).toBe(true);
      expect(text.endsWith('});')).toBe(true);
      expect(JSON.parse(text.slice('lab.show('.length, -2)).data.name).toBe('Scripted');
      const missing = await raw('GET', `${base()}/devices/${'0'.repeat(32)}?jsonp=cb`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).toMatch(/^cb\(\{.*"error":"404".*\}\);$/);
      const streamed = await (await raw('GET', `${base()}/devices?jsonp=cb&paginate=false`)).text();
      expect(JSON.parse(streamed.slice(3, -2)).data.length).toBeGreaterThan(0);
      const bad = await raw('GET', `${base()}/devices?jsonp=${encodeURIComponent('alert(1)//')}`);
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toBe('application/json');
      expect(((await bad.json()) as any).data.jsonp).toBeDefined();
    });
  });

  describe('415 and the request envelope, in the order of checks', () => {
    it('a write whose Content-Type Kazoo does not accept is a 415 (api_util:is_known_content_type/2), after 401, 403 and the path’s 404/405, before the document’s 404', async () => {
      const d = await createDevice({ name: 'Typed' });
      const json = JSON.stringify({ data: { name: 'x' } });
      const plain = { 'Content-Type': 'text/plain' };
      const r = await raw('POST', `${base()}/devices/${d.id}`, { headers: plain, body: json });
      expect(r.status).toBe(415);
      expect(((await r.json()) as any).data.accepted).toContain('application/json');
      expect((await raw('PUT', `${base()}/devices`, { headers: plain, body: json })).status).toBe(415);
      // 401 first
      expect((await fetch(`${srv.url}${base()}/devices/${d.id}`, { method: 'POST', headers: plain, body: json })).status).toBe(401);
      // 403 (another account's) before 415
      const other = (await createSubAccount(srv, srv.master.account_id, 'Other')).id;
      const outsider = await srv.apiLogin((await createSubAccount(srv, srv.master.account_id, 'Outsider')).apiKey);
      expect((await fetch(`${srv.url}/v2/accounts/${other}/devices/${d.id}`, { method: 'POST', headers: { ...plain, 'X-Auth-Token': outsider }, body: json })).status).toBe(403);
      // a path without the method: 405 before 415
      expect((await raw('POST', `${base()}/devices`, { headers: plain, body: json })).status).toBe(405);
      // 415 before the document is looked for
      expect((await raw('POST', `${base()}/devices/${'0'.repeat(32)}`, { headers: plain, body: json })).status).toBe(415);
      // JSON with its charset, forms and no Content-Type are accepted; a GET's body type is not judged
      expect((await raw('POST', `${base()}/devices/${d.id}`, { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: json })).status).toBe(200);
      expect((await raw('POST', `${base()}/devices/${d.id}`, { body: Buffer.from(json) })).status).toBe(200);
      expect((await raw('GET', `${base()}/devices/${d.id}`, { headers: plain, body: undefined })).status).toBe(200);
      // the routes that take files judge their own types
      expect((await raw('POST', `${base()}/media/${'0'.repeat(32)}/raw`, { headers: plain, body: 'abc' })).status).not.toBe(415);
    });

    it('a JSON body without data is refused as Kazoo refuses its envelope (api_util:is_valid_request_envelope/2): before the token is checked', async () => {
      const r = await fetch(`${srv.url}${base()}/devices`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'no envelope' }) });
      expect(r.status).toBe(400);
      const body = (await r.json()) as any;
      // the message set_request_data_in_context/4 gives it, as tel's contract names it
      expect(body.message).toBe('invalid request envelope');
      expect(body.error).toBe('400');
      expect(body.data.data.required.message).toMatch(/^Field is required but missing: /);
      expect(body.data.data.required.value).toEqual({ name: 'no envelope' });
      const typed = await raw('PUT', `${base()}/devices`, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: 'x' }) });
      expect(typed.status).toBe(400);
      expect(((await typed.clone().json()) as any).message).toBe('invalid request envelope');
      expect(((await typed.json()) as any).data).toEqual({ data: { type: { message: 'Value did not match type(s): object, array', target: 'object, array', value: 'x' } } });
      // an empty body has no envelope to check
      expect((await raw('DELETE', `${base()}/devices/${(await createDevice({ name: 'Bodiless' })).id}`, { headers: { 'Content-Type': 'application/json' } })).status).toBe(200);
    });
  });

  it('paginate=false answers without page_size, start_key or next_start_key (api_util:encode_start_keys/2)', async () => {
    const r = await srv.request('GET', '/v2/webhooks?paginate=false', {});
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('page_size');
    expect(r.body).not.toHaveProperty('next_start_key');
    const paged = await srv.request('GET', '/v2/webhooks?page_size=2', {});
    expect(paged.body.page_size).toBe(2);
  });
});
