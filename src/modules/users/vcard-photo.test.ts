import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { userVcard } from './vcard.js';

/** A 1×1 PNG: real image bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('users: vcard and photo', () => {
  let srv: TestServer;
  let account: { id: string; apiKey: string };
  let ada: string;
  let bob: string;
  let adaToken: string;
  let bobToken: string;
  const user = (id: string, tail = '') => `/v2/accounts/${account.id}/users/${id}${tail}`;
  const send = async (path: string, method: string, body: Buffer | string, contentType: string, token: string) => {
    const res = await fetch(srv.url + path, { method, headers: { 'X-Auth-Token': token, 'Content-Type': contentType }, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const fetchRaw = async (path: string, token: string, accept?: string) => {
    const res = await fetch(srv.url + path, { headers: { 'X-Auth-Token': token, ...(accept ? { Accept: accept } : {}) } });
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    account = await createSubAccount(srv, srv.master.account_id, 'Card Co');
    await srv.request('PATCH', `/v2/accounts/${account.id}`, { token: srv.adminToken, data: { org: 'Card Co, Ltd.' } });
    const mk = async (data: Record<string, unknown>) =>
      (await srv.request('PUT', `/v2/accounts/${account.id}/users`, { token: srv.adminToken, data: { priv_level: 'user', ...data } })).body.data.id;
    ada = await mk({
      username: 'ada',
      password: 'pw-ada-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      title: 'Analyst; first programmer',
      timezone: 'Europe/London',
      caller_id: { internal: { number: '1001' }, external: { number: '+442071838750' } },
      addresses: [{ address: '12 St James Square, London', types: ['home'] }],
    });
    bob = await mk({ username: 'bob', password: 'pw-bob-1', first_name: 'Bob', last_name: 'Roe' });
    adaToken = await srv.userLogin('Card Co', 'ada', 'pw-ada-1');
    bobToken = await srv.userLogin('Card Co', 'bob', 'pw-bob-1');
  });
  afterAll(() => srv?.close());

  it("GET …/vcard answers the user as a vCard 3.0 (text/vcard; Kazoo's text/x-vcard when asked)", async () => {
    const r = await fetchRaw(user(ada, '/vcard'), bobToken);
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/vcard; charset=utf-8');
    const text = r.bytes.toString('utf8');
    expect(text.split('\r\n')).toEqual([
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Ada Lovelace',
      'N:Lovelace;Ada;;;',
      'ORG:Card Co\\, Ltd.',
      'EMAIL;TYPE=INTERNET:ada@example.com',
      'TITLE:Analyst\\; first programmer',
      'TZ:Europe/London',
      'TEL;TYPE=WORK:1001',
      'TEL;TYPE=WORK,VOICE:+442071838750',
      'ADR;TYPE=home:;;12 St James Square\\, London;;;;',
      'END:VCARD',
      '',
    ]);
    expect((await fetchRaw(user(ada, '/vcard'), bobToken, 'text/x-vcard')).type).toBe('text/x-vcard; charset=utf-8');
    expect((await fetchRaw(user('c'.repeat(32), '/vcard'), bobToken)).status).toBe(404);
  });

  it('a photo: the user or an admin uploads it (image or base64), anyone of the account reads it, it joins the vCard', async () => {
    expect((await fetchRaw(user(ada, '/photo'), adaToken)).status).toBe(404);
    expect((await send(user(ada, '/photo'), 'POST', PNG, 'image/png', bobToken)).status).toBe(403);
    const up = await send(user(ada, '/photo'), 'POST', PNG, 'image/png', adaToken);
    expect(up).toEqual({ status: 200, body: expect.objectContaining({ status: 'success', data: {} }) });
    const raw = await fetchRaw(user(ada, '/photo'), bobToken);
    expect(raw.type).toBe('image/png');
    expect(raw.bytes.equals(PNG)).toBe(true);
    const b64 = await fetchRaw(user(ada, '/photo'), bobToken, 'application/base64');
    expect(b64.type).toBe('application/base64');
    expect(b64.bytes.toString()).toBe(PNG.toString('base64'));
    const card = (await fetchRaw(user(ada, '/vcard'), bobToken)).bytes.toString('utf8');
    const unfolded = card.replace(/\r\n /g, '');
    expect(unfolded).toContain(`PHOTO;ENCODING=b;TYPE=PNG:${PNG.toString('base64')}`);
    expect(card.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    // as Monster UI sends it: a data: URL in base64, by an admin
    const admin = await send(user(bob, '/photo'), 'POST', `data:image/png;base64,${PNG.toString('base64')}`, 'application/x-base64', srv.adminToken);
    expect(admin.status).toBe(200);
    expect((await send(user(bob, '/photo'), 'POST', 'not an image', 'text/plain', srv.adminToken)).status).toBe(415);
    expect((await send(user(bob, '/photo'), 'POST', '', 'image/png', srv.adminToken)).status).toBe(400);
    // the bytes must be the image the type says: HTML sent as image/png, or a PNG as image/gif, is refused
    const html = await send(user(bob, '/photo'), 'POST', '<html><script>alert(1)</script></html>', 'image/png', srv.adminToken);
    expect(html.status).toBe(400);
    expect(html.body.data.file.type.message).toBe('The file is not a image/png image');
    expect((await send(user(bob, '/photo'), 'POST', PNG, 'image/gif', srv.adminToken)).status).toBe(400);
    expect((await send(user(bob, '/photo'), 'POST', `data:image/png;base64,${Buffer.from('<svg/>').toString('base64')}`, 'application/base64', srv.adminToken)).status).toBe(400);
    // the photo stored before is still the one answered
    const kept = await fetchRaw(user(bob, '/photo'), srv.adminToken);
    expect(kept.type).toBe('image/png');
    expect(kept.bytes.equals(PNG)).toBe(true);
  });

  it('DELETE …/photo removes it (the user or an admin); deleting the user takes the photo with it', async () => {
    expect((await srv.request('DELETE', user(ada, '/photo'), { token: bobToken })).status).toBe(403);
    const del = await srv.request('DELETE', user(ada, '/photo'), { token: adaToken });
    expect(del.status).toBe(200);
    // crossbar_doc:delete_attachment/3: an empty document, deleted
    expect(del.body.data).toEqual({ _read_only: { deleted: true } });
    expect((await fetchRaw(user(ada, '/photo'), adaToken)).status).toBe(404);
    expect((await srv.request('DELETE', user(bob, '/photo'), { token: srv.adminToken })).status).toBe(200);
    await send(user(bob, '/photo'), 'POST', PNG, 'image/png', srv.adminToken);
    await srv.request('DELETE', user(bob), { token: srv.adminToken });
    const left = srv.core.db.prepare('SELECT COUNT(*) n FROM doc_attachments WHERE doc_id = ?').get(bob) as { n: number };
    expect(left.n).toBe(0);
  });

  it('a long field is folded at 75 octets without splitting a character; a user without a name is named by username', () => {
    const card = userVcard({ username: 'zed', note: 'é'.repeat(100) });
    const lines = card.split('\r\n');
    expect(lines[2]).toBe('FN:zed');
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(75);
    expect(card.replace(/\r\n /g, '')).toContain(`NOTE:${'é'.repeat(100)}`);
  });
});
