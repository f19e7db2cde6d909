import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../test/helpers/server.js';
import { request as httpGet } from 'node:http';
import { MAX_BODY_BYTES } from './server.js';

/** A GET sent byte for byte (fetch would resolve `..` before sending). */
function rawGet(base: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = httpGet({ host: u.hostname, port: u.port, path, method: 'GET', headers: { 'X-Auth-Token': token } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the HTTP envelope, errors and order of checks', () => {
  let srv: TestServer;
  let accountPath: string;
  beforeAll(async () => {
    srv = await startTestServer();
    accountPath = `/v2/accounts/${srv.master.account_id}`;
  });
  afterAll(async () => srv.close());

  it('a success envelope carries every field of the seed and the request id header', async () => {
    const r = await srv.request('GET', accountPath, { token: srv.adminToken });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['auth_token', 'data', 'node', 'request_id', 'revision', 'status', 'timestamp', 'version']);
    expect(r.body.status).toBe('success');
    expect(r.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(r.headers.get('x-request-id')).toBe(r.body.request_id);
    expect(r.headers.get('content-type')).toBe('application/json');
  });

  it('HEAD answers as GET would, without a body', async () => {
    const r = await srv.request('HEAD', accountPath, { token: srv.adminToken });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect((await srv.request('HEAD', accountPath, { token: 'bad' })).status).toBe(401);
  });

  it('a request id sent by the client is echoed', async () => {
    const r = await srv.request('GET', accountPath, { token: srv.adminToken, headers: { 'X-Request-ID': 'abc-123' } });
    expect(r.body.request_id).toBe('abc-123');
    expect(r.headers.get('x-request-id')).toBe('abc-123');
  });

  it('a request id of other characters than word ones and dashes is replaced by one of the server', async () => {
    // the envelope writes ids unescaped (successAnswer): only such ids may reach it
    for (const sent of ['a"b', 'a\\b', 'x'.repeat(65), 'é']) {
      const r = await srv.request('GET', accountPath, { token: srv.adminToken, headers: { 'X-Request-ID': sent } });
      expect(r.status).toBe(200);
      expect(r.body.request_id).toMatch(/^[0-9a-f]{32}$/);
      expect(r.headers.get('x-request-id')).toBe(r.body.request_id);
    }
  });

  it('an unknown path answers 404 not_found as JSON', async () => {
    const r = await srv.request('GET', '/v2/nothing_here', { token: srv.adminToken });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 'error', error: '404', message: 'not_found', data: { message: 'not found' } });
    expect(r.headers.get('content-type')).toBe('application/json');
  });

  it('a wrong method answers 405 with an Allow header', async () => {
    const r = await srv.request('POST', '/v2/token_auth', { token: srv.adminToken });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, DELETE');
    expect(r.body.message).toBe('invalid_method');
  });

  it('a body that is not JSON answers 400 invalid json, before the token is checked', async () => {
    const r = await srv.request('POST', accountPath, { body: '{"data": {"name": ', token: null });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('invalid json');
    expect(r.body.data.json.invalid.target).toBe('body');
  });

  it("a document sent without the data wrapper is refused as Kazoo refuses its envelope, the fields that came at the top level echoed", async () => {
    const sent = { first_name: 'Ada', last_name: 'Lovelace', username: 'ada' };
    const bare = await srv.request('PUT', `/v2/accounts/${srv.master.account_id}/users`, { body: JSON.stringify(sent), token: srv.adminToken });
    expect(bare.status).toBe(400);
    // api_util:is_valid_request_envelope/2 (request-features.test.ts)
    expect(bare.body.message).toBe('invalid request envelope');
    expect(bare.body.data.data.required).toEqual({
      message: 'Field is required but missing: the request\'s fields go under "data" ({"data": {…}}), and first_name, last_name, username came at the top level',
      value: sent,
    });
    // an empty body has no envelope to check
    const r = await srv.request('PATCH', `/v2/accounts/${srv.master.account_id}`, { body: '', token: srv.adminToken });
    expect(r.status).toBe(200);
  });

  it('data that is neither object nor array is a 400', async () => {
    const r = await srv.request('POST', accountPath, { body: '{"data": 5}', token: srv.adminToken });
    expect(r.status).toBe(400);
  });

  it('without a token, an unknown account answers 401, never 404', async () => {
    const r = await srv.request('GET', `/v2/accounts/${'0'.repeat(32)}`);
    expect(r.status).toBe(401);
    const bad = await srv.request('GET', '/v2/nothing_here');
    expect(bad.status).toBe(401);
  });

  it('an unknown account is a 404 for a super-duper admin (as Kazoo), a 403 like a foreign one for others, after the 401', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Probe Co');
    const token = await srv.apiLogin(sub.apiKey);
    const missing = `/v2/accounts/${'a'.repeat(32)}`;
    expect((await srv.request('GET', missing, { token })).status).toBe(403);
    expect((await srv.request('GET', missing, {})).status).toBe(401);
    const admin = await srv.request('GET', missing, { token: srv.adminToken });
    expect(admin.status).toBe(404);
    expect(admin.body).toMatchObject({ message: 'bad_identifier', data: { cause: 'a'.repeat(32), message: 'bad identifier' } });
  });

  it('a body over the documented maximum answers 413 without storing anything', async () => {
    const big = JSON.stringify({ data: { name: 'x'.repeat(MAX_BODY_BYTES + 10) } });
    const r = await srv.request('POST', accountPath, { body: big, token: srv.adminToken });
    expect(r.status).toBe(413);
    const after = await srv.request('GET', accountPath, { token: srv.adminToken });
    expect(after.body.data.name).toBe('Master');
  });

  it('OPTIONS needs no token and answers the CORS headers Kazoo sends', async () => {
    const r = await srv.request('OPTIONS', accountPath, {
      headers: { Origin: 'http://ui.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    expect(r.headers.get('access-control-allow-headers')).toContain('X-Auth-Token');
    expect(r.headers.get('access-control-allow-headers')).toContain('Content-Type');
  });

  it("a success carries the CORS headers when the request is a browser's (Origin), as Kazoo", async () => {
    const plain = await srv.request('GET', accountPath, { token: srv.adminToken });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const browser = await srv.request('GET', accountPath, { token: srv.adminToken, headers: { Origin: 'http://ui.example' } });
    expect(browser.status).toBe(200);
    expect(browser.headers.get('access-control-allow-origin')).toBe('*');
    expect(browser.headers.get('access-control-expose-headers')).toContain('X-Auth-Token');
    expect(browser.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('error responses carry the CORS headers too', async () => {
    const r = await srv.request('GET', accountPath, { token: 'bad' });
    expect(r.status).toBe(401);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.body.data).toEqual({ message: 'invalid credentials' });
    // As Kazoo, the version is told only to a caller whose token was checked.
    expect(r.body.version).toBeUndefined();
  });

  it('GET with Content-Type application/json and an empty body, plus a cache-buster, works', async () => {
    const r = await srv.request('GET', `${accountPath}?_=12345&whatever=1`, {
      token: srv.adminToken,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(200);
  });

  it('odd paths resolve to the same resource or to 404, never to something else', async () => {
    const id = srv.master.account_id;
    const same = [`//v2//accounts/${id}/`, `/V2/Accounts/${id.toUpperCase()}`, `/v2/accounts/${id}?x=1`];
    for (const p of same) {
      const r = await srv.request('GET', p, { token: srv.adminToken });
      expect(r.status, p).toBe(200);
      expect(r.body.data.id).toBe(id);
    }
    for (const p of [`/v2/accounts%2F${id}`, `/v2/accounts/${id}/../${id}`, `/v2/accounts/${id}/./users`, '/v2/accounts/%E0%A4%A', `/v2/accounts/${id}/%2E%2E`]) {
      const r = await rawGet(srv.url, p, srv.adminToken);
      expect(r, p).toBe(404);
    }
  });

  it('a server that receives garbage keeps serving', async () => {
    const net = await import('node:net');
    const port = new URL(srv.url).port;
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(port), '127.0.0.1', () => {
        s.write('GARBAGE /// HTTP/9\r\n\r\n');
      });
      s.setTimeout(2000, () => s.destroy());
      s.on('data', () => s.destroy());
      s.on('close', () => resolve());
      s.on('error', () => resolve());
    });
    const r = await srv.request('GET', accountPath, { token: srv.adminToken });
    expect(r.status).toBe(200);
  });

  it('a super-duper-only path answers 403 to another token before saying whether the method exists', async () => {
    const sub = await createSubAccount(srv, srv.master.account_id, 'Not Super Co');
    const token = await srv.apiLogin(sub.apiKey);
    for (const [method, path] of [['DELETE', '/v2/system_configs'], ['DELETE', '/v2/resources'], ['GET', '/v2/system_configs']]) {
      const r = await srv.request(method, path, { token });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toBe('forbidden');
    }
    const admin = await srv.request('DELETE', '/v2/system_configs', { token: srv.adminToken });
    expect(admin.status).toBe(405);
  });

  it('a wrong method on a path that needs no token is a 405, with or without a token', async () => {
    for (const [method, path] of [['POST', '/v2/webhooks'], ['DELETE', '/v2/webhooks/samples'], ['GET', '/v2/api_auth'], ['POST', '/v2/user_auth']]) {
      const r = await srv.request(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.body).toMatchObject({ error: '405', message: 'invalid_method', data: { message: 'method not allowed' } });
      expect(r.headers.get('allow')).toBeTruthy();
    }
    expect((await srv.request('POST', '/v2/token_auth')).status).toBe(401);
  });

  it('a preflight also allows the method the browser asks about, so the real answer reaches it', async () => {
    const r = await srv.request('OPTIONS', '/v2/token_auth', {
      headers: { Origin: 'http://ui.example', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-methods')).toBe('OPTIONS, GET, DELETE, PUT');
    const unknown = await srv.request('OPTIONS', '/v2/nothing_here', {
      headers: { Origin: 'http://ui.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(unknown.headers.get('access-control-allow-methods')).toBe('OPTIONS, GET');
    const put = await srv.request('PUT', '/v2/token_auth', { token: srv.adminToken, headers: { Origin: 'http://ui.example' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a client that hangs up while sending its body is not logged as a server failure', async () => {
    const spy = vi.spyOn(process.stderr, 'write');
    try {
      const net = await import('node:net');
      const port = Number(new URL(srv.url).port);
      await new Promise<void>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.write(`PUT /v2/accounts/${srv.master.account_id} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"data":`);
          setTimeout(() => s.destroy(), 100);
        });
        s.on('close', () => resolve());
      });
      await new Promise((r) => setTimeout(r, 100));
      const logged = spy.mock.calls.map((c) => String(c[0])).filter((t) => t.includes('failed'));
      expect(logged).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    expect((await srv.request('GET', accountPath, { token: srv.adminToken })).status).toBe(200);
  });

  it('a client that sends its request and closes its side still gets the answer, even one that waits for a commit', async () => {
    const net = await import('node:net');
    const port = Number(new URL(srv.url).port);
    const body = JSON.stringify({ data: { kind: 'call', direction: 'inbound', caller_id_number: '+14155550101', callee_id_number: '+14155550100' } });
    const head = `PUT ${accountPath}/simulations HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Auth-Token: ${srv.adminToken}\r\n`;
    const request = `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const statusLine = () =>
      new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        let text = '';
        s.on('data', (d) => (text += d));
        s.on('close', () => resolve(text.split('\r\n')[0]));
        // the request and the half-close in one go: the server reads both in the same turn
        s.end(request);
      });
    expect(await Promise.all(Array.from({ length: 5 }, statusLine))).toEqual(Array(5).fill('HTTP/1.1 201 Created'));
  });
});
