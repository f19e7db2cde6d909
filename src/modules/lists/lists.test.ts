import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('lists and their entries (/v2/accounts/{id}/lists/{id}/entries)', () => {
  let srv: TestServer;
  let token: string;
  let base: string;

  beforeAll(async () => {
    srv = await startTestServer();
    const a = await createSubAccount(srv, srv.master.account_id, 'Lists');
    token = await srv.apiLogin(a.apiKey);
    base = `/v2/accounts/${a.id}/lists`;
  });
  afterAll(() => srv?.close());

  it("entries are documents of their list: added, listed as Kazoo's view rows a page at a time, read, changed, removed", async () => {
    const list = (await srv.request('PUT', base, { token, data: { name: 'Callers', org: 'Acme Corp' } })).body.data.id;
    const other = (await srv.request('PUT', base, { token, data: { name: 'Other' } })).body.data.id;
    const entries = `${base}/${list}/entries`;
    const ids: string[] = [];
    for (const n of ['+14155550101', '+14155550102', '+14155550103']) {
      const r = await srv.request('PUT', entries, { token, data: { number: n, displayname: `Caller ${n.slice(-1)}`, list_id: other } });
      expect(r.status, r.text).toBe(201);
      // an entry belongs to the list of its path, whatever it says
      expect(r.body.data).toMatchObject({ list_id: list, profile: {} });
      ids.push(r.body.data.id);
    }
    await srv.request('PUT', `${base}/${other}/entries`, { token, data: { number: '+14155550199' } });
    const page = await srv.request('GET', `${entries}?page_size=2`, { token });
    expect(page.body.data).toEqual([
      { id: ids[0], key: list, value: { number: '+14155550101' } },
      { id: ids[1], key: list, value: { number: '+14155550102' } },
    ]);
    const next = await srv.request('GET', `${entries}?page_size=2&start_key=${page.body.next_start_key}`, { token });
    expect(next.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
    // an entry is read through its own list only
    expect((await srv.request('GET', `${base}/${other}/entries/${ids[0]}`, { token })).status).toBe(404);
    const patched = await srv.request('PATCH', `${entries}/${ids[0]}`, { token, data: { firstname: 'Ann' } });
    expect(patched.body.data).toMatchObject({ firstname: 'Ann', number: '+14155550101', list_id: list });
    expect((await srv.request('DELETE', `${entries}/${ids[1]}`, { token })).body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('PUT', `${base}/${'0'.repeat(32)}/entries`, { token, data: { number: '1' } })).status).toBe(404);
    // the list's own document never holds its entries
    expect((await srv.request('GET', `${base}/${list}`, { token })).body.data).toEqual({ id: list, name: 'Callers', org: 'Acme Corp' });
  });

  it("an entry's vCard carries its names, its list's organisation and its photo", async () => {
    const list = (await srv.request('PUT', base, { token, data: { name: 'Partners', org: 'Partner Inc' } })).body.data.id;
    const entry = (await srv.request('PUT', `${base}/${list}/entries`, { token, data: { firstname: 'Ada', lastname: 'Lovelace', displayname: 'Countess' } })).body.data.id;
    const photo = await srv.request('POST', `${base}/${list}/entries/${entry}/photo`, { token, body: `data:image/png;base64,${PNG.toString('base64')}`, headers: { 'Content-Type': 'application/base64' } });
    expect(photo.status, photo.text).toBe(200);
    const card = await srv.request('GET', `${base}/${list}/entries/${entry}/vcard`, { token });
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe('text/vcard; charset=utf-8');
    expect(card.text).toContain('FN:Ada Lovelace\r\n');
    expect(card.text).toContain('N:Lovelace;Ada;;;\r\n');
    expect(card.text).toContain('ORG:Partner Inc\r\n');
    expect(card.text).toContain('NICKNAME:Countess\r\n');
    expect(card.text).toContain('PHOTO;ENCODING=b;TYPE=PNG:');
  });

  it('deleting a list takes its entries; deleting its entries answers them and keeps the list', async () => {
    const list = (await srv.request('PUT', base, { token, data: { name: 'Short-lived' } })).body.data.id;
    const entries = `${base}/${list}/entries`;
    const a = (await srv.request('PUT', entries, { token, data: { number: '100' } })).body.data.id;
    const b = (await srv.request('PUT', entries, { token, data: { number: '200' } })).body.data.id;
    const cleared = await srv.request('DELETE', entries, { token });
    expect(cleared.body.data.map((r: { id: string }) => r.id).sort()).toEqual([a, b].sort());
    expect((await srv.request('GET', entries, { token })).body.data).toEqual([]);
    const c = (await srv.request('PUT', entries, { token, data: { number: '300' } })).body.data.id;
    expect((await srv.request('DELETE', `${base}/${list}`, { token })).body.data).toMatchObject({ id: list, _read_only: { deleted: true } });
    expect((await srv.request('GET', `${entries}/${c}`, { token })).status).toBe(404);
    const left = srv.core.db.prepare("SELECT count(*) AS n FROM docs WHERE kind = 'list_entry' AND json_extract(doc, '$.list_id') = ?").get(list) as { n: number };
    expect(left.n).toBe(0);
  });
});
