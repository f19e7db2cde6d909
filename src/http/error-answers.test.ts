import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { buildRouter } from './router.js';
import { createApiServer, MAX_BODY_BYTES } from './server.js';

/** What came back on a raw connection: status, headers (lower-case names) and the body parsed. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends bytes as they are (no client library to tidy them) and reads the one answer. */
function rawExchange(port: number, bytes: string, opts: { closeAfterMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      const raw = text.slice(split + 4);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(bytes);
    setTimeout(() => socket.end(), opts.closeAfterMs ?? 200);
  });
}

function expectEnvelope(r: RawAnswer, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.body).toMatchObject({ status: 'error', error: String(status), request_id: r.headers['x-request-id'] });
  expect(typeof r.body.message).toBe('string');
  expect(Number(r.headers['content-length'])).toBeGreaterThan(0);
}

describe('every error answer is the JSON envelope, parse errors included', () => {
  let srv: TestServer;
  let port: number;
  beforeAll(async () => {
    srv = await startTestServer();
    port = srv.api.port;
  });
  afterAll(async () => srv.close());

  const cases: [string, string, number][] = [
    ['a method HTTP does not know', 'FOO /v2/accounts HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ['CONNECT (no tunnels here)', 'CONNECT example.com:443 HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ['a header name with a space', 'GET /v2/webhooks HTTP/1.1\r\nHost: localhost\r\nBad Header: y\r\n\r\n', 400],
    ['headers over the size limit', `GET /v2/webhooks HTTP/1.1\r\nHost: localhost\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
    ['bytes that are not HTTP', '\x00\x01\x02garbage\r\n\r\n', 400],
    ['a Content-Length that is not a number', 'PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n', 400],
    ['Content-Length and chunked together', 'PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['a malformed chunk', 'PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400],
    ['an Expect other than 100-continue (ignored)', 'PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}', 400],
    ['bad percent-encoding in the path', 'GET /v2/accounts/%E0%A4%A HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 401],
    ['a method tel has no route for', 'PROPFIND /v2/webhooks HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 405],
    ['a body that is not JSON', 'PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":', 400],
    ['a body declared larger than the limit', `PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\nConnection: close\r\n\r\n`, 413],
  ];
  it.each(cases)('%s', async (_what, bytes, status) => {
    expectEnvelope(await rawExchange(port, bytes), status);
  });

  it('a request without Host is answered as any other', async () => {
    const r = await rawExchange(port, 'GET /v2/webhooks HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
  });

  it('a body cut off midway leaves the server answering', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write('PUT /v2/api_auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{"data":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const r = await srv.request('GET', '/v2/webhooks');
    expect(r.status).toBe(200);
  });
});

describe('a 500, if one happens', () => {
  it('answers the envelope and logs the stack with the request id', async () => {
    const { openCore, closeCore } = await import('../core.js');
    const { tempDir } = await import('../../test/helpers/server.js');
    const tmp = tempDir();
    const core = openCore(`${tmp.dir}/tel.db`);
    const router = buildRouter([{ endpoints: ['boom'], routes: [{ method: 'GET', path: 'boom', auth: 'none', handler: () => JSON.parse('{') }] }]);
    const server = createApiServer(core, router);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    try {
      const r = await rawExchange((server.address() as AddressInfo).port, 'GET /v2/boom HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      expectEnvelope(r, 500);
      expect(r.body.message).toBe('internal_server_error');
      const line = logged.join('');
      expect(line).toContain(`request ${r.headers['x-request-id']} failed`);
      expect(line).toMatch(/SyntaxError[\s\S]*\n\s+at /);
    } finally {
      spy.mockRestore();
      await new Promise((resolve) => server.close(resolve));
      closeCore(core);
      tmp.cleanup();
    }
  });
});
