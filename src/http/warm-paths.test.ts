import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { apiRouter } from './api-router.js';
import { createApiServer } from './server.js';
import { warmConnectionPaths } from './warm-paths.js';

describe("the warm-up of connection paths", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('makes requests on keep-alive connections that its client then closes, the server reading each end, and leaves nothing listening', async () => {
    const server = createApiServer(srv.core, apiRouter(), { counted: false });
    const ends: string[] = [];
    let requests = 0;
    server.on('request', (req) => {
      requests++;
      expect(req.url).toBe('/v2/webhooks');
    });
    server.on('connection', (socket: Socket) => {
      socket.once('end', () => ends.push('end'));
    });
    let answered = 0;
    server.on('request', (_req, res) => res.once('finish', () => answered++));
    await warmConnectionPaths(server, '/v2/webhooks');
    expect(requests).toBe(12);
    expect(answered).toBe(12);
    // two connections, each closed by the client (the server read its end) before the warm-up was over
    expect(ends).toEqual(['end', 'end']);
    expect(server.listening).toBe(false);
  });

  it("leaves the server's metrics as they were", async () => {
    const metrics = async () => (await srv.request('GET', '/metrics')).text.split('\n').filter((l) => l.startsWith('tel_http_requests_total{'));
    const before = (await metrics()).filter((l) => l.includes('webhooks'));
    await warmConnectionPaths(createApiServer(srv.core, apiRouter(), { counted: false }), '/v2/webhooks');
    expect((await metrics()).filter((l) => l.includes('webhooks'))).toEqual(before);
    // a counted server's requests do show
    await srv.request('GET', '/v2/webhooks');
    expect((await metrics()).filter((l) => l.includes('webhooks'))).not.toEqual(before);
  });

  it('never fails nor waits long: a server that does not answer is given up after one try of each connection, and closed', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => {});
    const started = Date.now();
    await expect(warmConnectionPaths(silent, '/v2/webhooks')).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(silent.listening).toBe(false);
  });
});
