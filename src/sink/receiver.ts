import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Core } from '../core-type.js';
import { STORED_BODY_CHARS } from '../delivery/send.js';
import { deliverySettings } from '../delivery/settings.js';
import { BUSY_TIMEOUT_MS, isBusy, SERVER_BUSY_TIMEOUT_MS, setBusyTimeout } from '../store/db.js';
import type { AnswerPolicy } from './policy.js';
import { pruneSinkRecords, SinkRecorder, type SinkRecord } from './records.js';
import type { Hook } from '../modules/webhooks/store.js';
import { identify, judge, type Claim } from './verify.js';

// node:http through require, as the API server loads it: its ESM facade would load Node's internal
// fetch with it (see http/server.ts).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** A request body is read this far for checking its signature; the rest is counted, not kept. */
export const MAX_READ_BYTES = 1024 * 1024;
/**
 * Body bytes all requests being read may hold together: past it a body is counted, not kept (its
 * signature then checks as invalid), so that many clients sending large bodies slowly cannot make
 * the sink hold a mebibyte each.
 */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;
/** Connections open at once at most (more are closed as they come); each target of tel's sender opens 16. */
export const MAX_CONNECTIONS = 1024;
/** A request's headers must arrive within this, the whole request within the other (408 otherwise). */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** How often records past the retention (`attempts_retention_s`) are removed. */
const PRUNE_INTERVAL_MS = 60_000;

/** How a sink listens, answers and reports. */
export interface SinkOptions {
  host: string;
  port: number;
  policy: AnswerPolicy;
  /** verify every signature with this secret instead of the hooks' */
  secret?: string;
  /** hears about each batch of records once it is in the database (with the name of each one's hook) */
  recorded(batch: { record: SinkRecord; hookName: string | null }[]): void;
}

/** A listening sink. */
export interface RunningSink {
  url: string;
  /** host:port, as records name it */
  listener: string;
  /** stops listening, drops hanging requests, writes what is still unrecorded */
  close(): Promise<void>;
}

/** The body bytes the requests being read hold, against MAX_HELD_BYTES. */
interface Held {
  bytes: number;
}

/**
 * Reads a request's body: its start (for the signature and the record, as far as `held` leaves
 * room) and its whole size. What it held is given back once it ends, however it ends.
 */
function readBody(req: IncomingMessage, held: Held): Promise<{ body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let full = false;
    const release = () => {
      held.bytes -= kept;
      kept = 0;
    };
    req.on('data', (c: Buffer) => {
      bytes += c.length;
      if (full || kept >= MAX_READ_BYTES) return;
      if (held.bytes + c.length > MAX_HELD_BYTES) {
        full = true;
        return;
      }
      chunks.push(c);
      kept += c.length;
      held.bytes += c.length;
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).subarray(0, MAX_READ_BYTES).toString('utf8');
      release();
      resolve({ body, bytes });
    });
    req.on('close', release);
    req.on('error', (err) => {
      release();
      reject(err);
    });
  });
}

/** What judging a record waits for: the request's headers, its body as read, whom it claims to be from. */
interface Unjudged {
  headers: IncomingMessage['headers'];
  body: string;
  claim: Claim;
}

/**
 * Starts `tel sink`: an HTTP receiver that answers every request as its policy says (at once,
 * after a delay, or never), and records it — time, method, path, query, headers, the start of
 * the body, the answer, how long it took and its signature's verdict — in `sink_requests`. The
 * answer needs none of that: signatures are judged with the batch that writes their records,
 * each hook read once a batch. Works beside a running `tel serve` on the same file.
 */
export async function startSinkReceiver(core: Core, opts: SinkOptions): Promise<RunningSink> {
  // weak: a batch the file refused for good takes its entries with it
  const unjudged = new WeakMap<SinkRecord, Unjudged>();
  const hookNames = new WeakMap<SinkRecord, string | null>();
  const judgeBatch = (batch: SinkRecord[]) => {
    const hooks = new Map<string, Hook | undefined>();
    for (const r of batch) {
      const u = unjudged.get(r);
      if (!u) continue;
      const j = judge(core, u.headers, u.body, { claim: u.claim, secret: opts.secret, nowMs: r.received, hooks });
      Object.assign(r, { verdict: j.verdict, verdictDetail: j.detail, accountId: j.hook?.accountId ?? null });
      hookNames.set(r, j.hook ? String(j.hook.doc.name ?? '') : null);
    }
  };
  const recorder = new SinkRecorder(core, judgeBatch, (batch) => {
    opts.recorded(batch.map((record) => ({ record, hookName: hookNames.get(record) ?? null })));
  });
  const hanging = new Set<ServerResponse>();
  let listener = '';
  let stopping = false;

  const held: Held = { bytes: 0 };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const { body, bytes } = await readBody(req, held);
    const received = Date.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const claim = identify(core, req.headers);
    const answer = opts.policy.answer(path);
    const record: SinkRecord = {
      id: 0,
      received,
      listener,
      method: req.method ?? 'GET',
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      headers: req.headers,
      body: body.length > STORED_BODY_CHARS ? body.slice(0, STORED_BODY_CHARS) : body,
      bodyBytes: bytes,
      eventId: claim.eventId,
      hookId: claim.hookId,
      // judged with its batch
      accountId: null,
      verdict: 'unsigned',
      verdictDetail: null,
      status: answer.status,
      reply: answer.status === null ? null : { headers: answer.headers, body: answer.body },
      answeredBy: answer.by,
      latencyMs: null,
    };
    unjudged.set(record, { headers: req.headers, body, claim });
    if (answer.status === null) {
      // never answered: recorded now, the connection held until the client or the sink lets go
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      recorder.add(record);
      return;
    }
    const status = answer.status;
    // recorded once answered, or once the client gave up waiting (a delay longer than its timeout)
    res.on('close', () => {
      if (!res.writableFinished) record.answeredBy += stopping ? ' (the sink stopped before the answer)' : ' (the client left before the answer)';
      record.latencyMs = Date.now() - received;
      recorder.add(record);
    });
    const reply = () => {
      if (!res.destroyed) res.writeHead(status, answer.headers).end(answer.body);
    };
    if (answer.delayMs > 0) setTimeout(reply, answer.delayMs);
    else reply();
  };

  // a slow client is given up on (408) and its connection closed: checked every second
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // a client that went away while sending its body is no error of the sink's
      if (req.destroyed) return;
      process.stderr.write(`tel: sink: ${(err as Error)?.message ?? err}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // a webhook sender keeps its connections: never be the one who closes them first
  server.keepAliveTimeout = 65_000;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  listener = `${shownHost}:${port}`;
  // a serving process never blocks long on the file: its batches wait for it between tries (records.ts)
  setBusyTimeout(core.db, SERVER_BUSY_TIMEOUT_MS);
  const prune = () => {
    try {
      pruneSinkRecords(core, deliverySettings(core).attemptsRetentionSeconds);
    } catch (err) {
      // a busy file: the next round prunes
      if (!isBusy(err)) process.stderr.write(`tel: sink: pruning failed: ${(err as Error)?.message ?? err}\n`);
    }
  };
  prune();
  const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  return {
    url: `http://${listener}`,
    listener,
    async close() {
      stopping = true;
      clearInterval(pruneTimer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of hanging) res.destroy();
      // requests being delayed are answered (and recorded) first; kept-alive connections are dropped once idle
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const force = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
      // the last records are written before the process ends, waiting for the file if need be
      setBusyTimeout(core.db, BUSY_TIMEOUT_MS);
      recorder.flush();
    },
  };
}
