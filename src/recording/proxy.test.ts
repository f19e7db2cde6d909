import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawExchange } from './capture.js';
import { startRecordingProxy, type RunningProxy } from './proxy.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A large body's bytes: the same for the same size. */
const bytes = (n: number) => Buffer.alloc(n, 'tel record streams both ways. ');

/** What the proxy handed over: bodies' parts and whole exchanges. */
class Sink {
  parts = new Map<number, number>();
  exchanges: RawExchange[] = [];
  part(seq: number, _part: 'request' | 'response', chunks: Uint8Array[]) {
    this.parts.set(seq, (this.parts.get(seq) ?? 0) + chunks.reduce((n, c) => n + c.length, 0));
  }
  exchange(e: RawExchange) {
    this.exchanges.push(e);
  }
  last() {
    return this.exchanges[this.exchanges.length - 1];
  }
}

let upstream: Server;
let upstreamUrl: string;
let connections = 0;
const sink = new Sink();
let proxy: RunningProxy;

async function read(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  upstream = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'Content-Type, X-Auth-Token' }).end();
    } else if (url.pathname === '/big') {
      const all = bytes(Number(url.searchParams.get('n')));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let at = 0; at < all.length; at += 65536) if (!res.write(all.subarray(at, at + 65536))) await new Promise((r) => res.once('drain', r));
      res.end();
    } else if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sha: sha(body), bytes: body.length, host: req.headers.host, connection: req.headers.connection }));
    }
  });
  upstream.on('connection', () => connections++);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = await startRecordingProxy({ host: '127.0.0.1', port: 0, upstream: new URL(upstreamUrl), sink });
});

afterAll(async () => {
  await proxy.close(100);
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

describe("tel record's proxy", () => {
  it('streams an upload to the upstream and a large answer back, whole, and hands both over in parts', async () => {
    const upload = bytes(8 * 1024 * 1024);
    const put = await fetch(`${proxy.url}/v2/accounts/a/media/b/raw`, { method: 'POST', body: upload, headers: { 'content-type': 'audio/mpeg' } });
    expect(await put.json()).toMatchObject({ sha: sha(upload), bytes: upload.length, host: new URL(proxy.url).host });
    const sent = sink.last();
    expect(sent).toMatchObject({ method: 'POST', url: '/v2/accounts/a/media/b/raw', status: 200, reqBytes: upload.length });
    const held = [...sent.reqBody, ...sent.resBody].reduce((n, c) => n + c.length, 0);
    expect(sink.parts.get(sent.seq)! + held).toBe(upload.length + sent.resBytes);

    const size = 20 * 1024 * 1024;
    const big = Buffer.from(await (await fetch(`${proxy.url}/big?n=${size}`)).arrayBuffer());
    expect(sha(big)).toBe(sha(bytes(size)));
    const answered = sink.last();
    expect(answered.resBytes).toBe(size);
    // the proxy never held the answer whole: parts went on as it streamed
    expect(sink.parts.get(answered.seq)).toBeGreaterThan(size - 512 * 1024);
  });

  it('keeps its connection to the upstream alive, forwards CORS preflights and the Host the client used', async () => {
    const before = connections;
    const client = new Pool(proxy.url, { connections: 1 });
    try {
      for (let i = 0; i < 30; i++) await (await client.request({ path: `/v2/about?i=${i}`, method: 'GET' })).body.json();
      // the connection the tests before opened, or one: never one a request
      expect(connections - before).toBeLessThanOrEqual(1);
      const preflight = await client.request({
        path: '/v2/accounts/a/users',
        method: 'OPTIONS',
        headers: { origin: 'http://ui.example', 'access-control-request-method': 'PUT' },
      });
      await preflight.body.dump();
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-headers']).toBe('Content-Type, X-Auth-Token');
      expect(sink.last()).toMatchObject({ method: 'OPTIONS', status: 204 });
    } finally {
      await client.close();
    }
  });

  it('records an answer cut short by the client as aborted, and answers 502 when the upstream is down', async () => {
    const ac = new AbortController();
    const res = await fetch(`${proxy.url}/slow`, { signal: ac.signal });
    const reader = res.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('first part');
    ac.abort();
    await expect.poll(() => sink.last().url).toBe('/slow');
    expect(sink.last().aborted).toBe('the client closed the connection before the answer ended');

    // a port that was free a moment ago, where nothing listens now
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const down = await startRecordingProxy({ host: '127.0.0.1', port: 0, upstream: new URL(`http://127.0.0.1:${port}`), sink });
    try {
      const r = await fetch(`${down.url}/v2/about`);
      expect(r.status).toBe(502);
      expect(await r.json()).toMatchObject({ error: '502', message: 'bad gateway', status: 'error' });
      expect(sink.last().aborted).toMatch(/^the upstream: /);
    } finally {
      await down.close(100);
    }
  });
});
