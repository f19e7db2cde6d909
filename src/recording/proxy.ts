import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import type { RawExchange } from './capture.js';
import { HOP_BY_HOP, MAX_RECORDED_BODY_BYTES } from './format.js';

// node:http through require, as the API server loads it: its ESM facade would load Node's internal
// fetch with it (see http/server.ts).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** A body is handed to the recording in parts of about this size: never held here whole. */
const PART_BYTES = 256 * 1024;
/** Connections to the upstream at once at most (kept alive between requests). */
const UPSTREAM_CONNECTIONS = 256;
/** As tel serve: longer than the keep-alive of common clients, so that the client closes first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Where the proxy hands what it saw (recording/writer.ts's RecordingWriter). */
export interface ExchangeSink {
  part(seq: number, part: 'request' | 'response', chunks: Uint8Array[]): void;
  exchange(exchange: RawExchange): void;
}

export interface RecordingProxyOptions {
  host: string;
  port: number;
  upstream: URL;
  sink: ExchangeSink;
}

export interface RunningProxy {
  url: string;
  /**
   * Stops listening; exchanges under way get `graceMs` to end, then their connections are closed
   * (and they are recorded as aborted). Every exchange has been handed to the sink once it resolves.
   */
  close(graceMs: number): Promise<void>;
}

/** A body's bytes on their way: handed to the sink in parts, counted past what a recording keeps. */
class BodyTap {
  chunks: Uint8Array[] = [];
  bytes = 0;
  private held = 0;

  constructor(
    private readonly sink: ExchangeSink,
    private readonly seq: number,
    private readonly part: 'request' | 'response',
  ) {}

  add(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (this.bytes > MAX_RECORDED_BODY_BYTES) {
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held >= PART_BYTES) {
      this.sink.part(this.seq, this.part, this.chunks);
      this.chunks = [];
      this.held = 0;
    }
  }
}

/** The request's headers as forwarded: all but those of the client's connection (Host kept). */
function forwardedHeaders(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'connection') for (const n of raw[i + 1].split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i], raw[i + 1]);
  }
  return out;
}

/** The answer's headers as given to the client: all but those of the upstream's connection. */
function answeredHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(String(headers.connection ?? '').split(',').map((n) => n.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  return out;
}

/** The answer when the upstream cannot be reached: Kazoo's error envelope, 502. */
function badGateway(res: ServerResponse, err: Error): void {
  const body = JSON.stringify({ data: { message: `tel record: the upstream did not answer (${err.message})` }, error: '502', message: 'bad gateway', status: 'error' });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/**
 * Starts `tel record`'s reverse proxy: every request is forwarded to the upstream as it came (its
 * Host too, so that the URLs the upstream writes in its answers lead back here) through a pool of
 * kept-alive undici connections, and its answer streamed back, both ways with backpressure, never
 * held whole. Each exchange is handed to the sink as it goes (bodies in parts) and when it ends.
 */
export async function startRecordingProxy(opts: RecordingProxyOptions): Promise<RunningProxy> {
  const { Pool } = await import('undici');
  const pool = new Pool(opts.upstream.origin, { connections: UPSTREAM_CONNECTIONS });
  const prefix = opts.upstream.pathname.replace(/\/+$/, '');
  const startedAt = performance.now();
  const underWay = new Set<() => void>();
  let seq = 0;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    const ex: RawExchange = { seq: ++seq, atMs: t0 - startedAt, method: req.method ?? 'GET', url: req.url ?? '/', reqHeaders: req.rawHeaders, reqBody: [], reqBytes: 0, resBody: [], resBytes: 0 };
    const sent = new BodyTap(opts.sink, ex.seq, 'request');
    const answered = new BodyTap(opts.sink, ex.seq, 'response');
    let controller: Dispatcher.DispatchController | undefined;
    let ended = false;
    const end = (aborted?: string) => {
      if (ended) return;
      ended = true;
      underWay.delete(cut);
      Object.assign(ex, { reqBody: sent.chunks, reqBytes: sent.bytes, resBody: answered.chunks, resBytes: answered.bytes });
      if (aborted !== undefined) ex.aborted = aborted;
      opts.sink.exchange(ex);
    };
    const cut = () => {
      end('tel record stopped before the answer ended');
      controller?.abort(new Error('tel record stopped'));
      res.destroy();
    };
    underWay.add(cut);
    res.on('close', () => {
      if (ended) return;
      // recorded first: aborting reports an error to the handler at once
      end('the client closed the connection before the answer ended');
      controller?.abort(new Error('the client went away'));
    });
    const length = req.headers['content-length'];
    const hasBody = length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
    pool.dispatch(
      { path: prefix + ex.url, method: ex.method as Dispatcher.HttpMethod, headers: forwardedHeaders(req.rawHeaders), body: hasBody ? req : null },
      {
        onRequestStart(c) {
          controller = c;
        },
        // the request's body as undici writes it (a second reader of the stream would race undici's)
        onBodySent(chunk: Buffer) {
          sent.add(chunk);
        },
        onResponseStart(_c, status, headers, statusMessage) {
          ex.status = status;
          ex.resHeaders = headers;
          ex.headersMs = performance.now() - t0;
          res.writeHead(status, statusMessage, answeredHeaders(headers));
        },
        onResponseData(c, chunk) {
          answered.add(chunk);
          if (!res.write(chunk)) {
            c.pause();
            res.once('drain', () => c.resume());
          }
        },
        onResponseEnd() {
          ex.totalMs = performance.now() - t0;
          res.end();
          end();
        },
        onResponseError(_c, err) {
          if (ended) return;
          if (!res.headersSent) badGateway(res, err);
          else res.destroy(err);
          end(`the upstream: ${err.message}`);
        },
      },
    );
  };

  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requireHostHeader: false }, handle);
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (underWay.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const cut of [...underWay]) cut();
      for (const s of sockets) s.destroy();
      await closed;
      await pool.close();
    },
  };
}
