import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { startSink, type Sink } from '../../test/helpers/sink.js';
import { enqueueDelivery } from './outbox.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface AttemptRecord {
  result: string;
  reason: string | null;
  client_error: string | null;
  http_status: number | null;
  resp_body: string | null;
  latency_ms: number;
}

async function attemptOf(srv: TestServer, deliveryId: number, timeoutMs = 8000): Promise<AttemptRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = srv.core.db.prepare('SELECT * FROM delivery_attempts WHERE delivery_id = ?').get(deliveryId) as AttemptRecord | undefined;
    if (row) return row;
    if (Date.now() > until) throw new Error(`no attempt for delivery ${deliveryId}`);
    await sleep(20);
  }
}

describe('what hook configuration and receivers cannot do to the sender', () => {
  let srv: TestServer;
  let sink: Sink;
  let endless: Server;
  let endlessUrl: string;
  /** the endless server's connections still open */
  const endlessSockets = new Set<unknown>();

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    // answers 200 and then body bytes forever
    endless = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
      };
      res.on('drain', pump);
      pump();
    });
    endless.on('connection', (socket) => {
      endlessSockets.add(socket);
      socket.on('close', () => endlessSockets.delete(socket));
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    endless.closeAllConnections();
    await new Promise((r) => endless.close(r));
    await sink.close();
    await srv.close();
  });

  const enqueue = (url: string, headers: Record<string, string> = {}) =>
    enqueueDelivery(srv.core, { kind: 'probe', accountId: srv.master.account_id, eventName: 'probe', url, method: 'post', payload: { a: 1 }, headers });

  it('a header value with CR/LF is never sent: the try fails as an invalid request', async () => {
    const id = enqueue(`${sink.url}/h`, { 'x-note': 'fine\r\nX-Injected: yes' });
    const a = await attemptOf(srv, id);
    expect(a.result).toBe('failure');
    expect(a.reason).toBe('invalid request');
    expect(a.client_error).toMatch(/x-note/);
    expect(sink.requests.some((r) => r.headers['x-injected'] !== undefined)).toBe(false);
    expect(sink.requests.filter((r) => r.path === '/h')).toHaveLength(0);
  });

  it('a URL with CR/LF is never sent either', async () => {
    const id = enqueue(`${sink.url}/u?q=1\r\nX-Injected: yes`);
    const a = await attemptOf(srv, id);
    expect(a.reason).toBe('invalid request');
    expect(sink.requests.some((r) => r.headers['x-injected'] !== undefined)).toBe(false);
  });

  it('an answer that never ends is read to 64 KiB: the try succeeds at once on its status, 16 KiB kept, the connection dropped', async () => {
    const id = enqueue(`${endlessUrl}/big`);
    const a = await attemptOf(srv, id, 5000);
    expect(a, JSON.stringify({ ...a, resp_body: a.resp_body?.length })).toMatchObject({ result: 'success' });
    expect(a.http_status).toBe(200);
    expect(a.resp_body!.length).toBe(16 * 1024);
    expect(a.latency_ms).toBeLessThan(2000);
    // and the connection is dropped rather than read on
    for (const end = Date.now() + 3000; endlessSockets.size > 0 && Date.now() < end; ) await sleep(20);
    expect(endlessSockets.size).toBe(0);
  });
});
