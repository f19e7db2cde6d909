import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a sink received. */
export interface SinkRequest {
  method: string;
  /** path with query string */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** the sender's port: which connection (so which sending process) it came over */
  remotePort: number;
}

/** How the sink answers: a status (with headers/body), or `hang` to never answer. */
export type SinkReply = { status?: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A real HTTP server on 127.0.0.1 recording what webhook senders send it. */
export interface Sink {
  url: string;
  requests: SinkRequest[];
  /** sets how requests are answered (default 200) */
  respond(fn: (req: SinkRequest) => SinkReply | Promise<SinkReply>): void;
  /** resolves once `count` requests matching `filter` arrived; rejects after `timeoutMs` */
  waitFor(count: number, opts?: { timeoutMs?: number; filter?: (r: SinkRequest) => boolean }): Promise<SinkRequest[]>;
  /** answers every hanging request with 200 */
  releaseHung(): void;
  close(): Promise<void>;
}

/** Starts a sink on a free loopback port. */
export async function startSink(): Promise<Sink> {
  const requests: SinkRequest[] = [];
  const hung: ServerResponse[] = [];
  let responder: (req: SinkRequest) => SinkReply | Promise<SinkReply> = () => ({ status: 200 });
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const r: SinkRequest = {
        method: req.method ?? 'GET',
        url,
        path: q >= 0 ? url.slice(0, q) : url,
        query: new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(r);
      for (const w of waiters) w();
      const reply = await responder(r);
      if (reply === 'hang') {
        hung.push(res);
        return;
      }
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(fn) {
      responder = fn;
    },
    waitFor(count, opts = {}) {
      const filter = opts.filter ?? (() => true);
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = requests.filter(filter);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`sink: ${requests.filter(filter).length} of ${count} requests after ${opts.timeoutMs ?? 5000} ms`));
        }, opts.timeoutMs ?? 5000);
        waiters.add(check);
        check();
      });
    },
    releaseHung() {
      for (const res of hung.splice(0)) if (!res.writableEnded) res.writeHead(200).end();
    },
    async close() {
      for (const res of hung.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
