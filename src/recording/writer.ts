import { createRequire } from 'node:module';
import type { MessagePort, Worker } from 'node:worker_threads';
import { lowerThreadPriority, startBundleThread } from '../util/bundle-thread.js';
import { recordedExchange, type RawExchange } from './capture.js';
import type { RecordingHeader } from './format.js';
import { Redactor } from './redact.js';

const require = createRequire(import.meta.url);

/** What the CLI prints of an exchange once it is written (its path and query redacted). */
export interface WrittenExchange {
  seq: number;
  method: string;
  path: string;
  query: string;
  status: number | null;
  ms: number | null;
  aborted?: string;
}

type ToThread =
  | { type: 'part'; seq: number; part: 'request' | 'response'; chunk: Uint8Array }
  | { type: 'exchange'; exchange: RawExchange }
  | { type: 'close' };
type FromThread =
  | { type: 'ready' }
  | { type: 'written'; exchanges: WrittenExchange[] }
  | { type: 'closed'; exchanges: number }
  | { type: 'failed'; error: string };

/** What the thread is started with. */
interface ThreadData {
  file: string;
  header: RecordingHeader;
}

/** The recording thread's nice value: the proxy's event loop goes first on a shared core. */
const THREAD_NICE = 10;
/** How often the thread tells what it has written (the lines `tel record` prints). */
const TELL_EVERY_MS = 50;

/** Copies of byte chunks in one buffer of their own, which a message can hand over without copying again. */
function transferable(chunks: Uint8Array[]): Uint8Array[] {
  if (chunks.length === 0) return [];
  const size = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return [out];
}

/**
 * The proxy's side of the recording: a worker thread that decodes, redacts and writes each exchange
 * (redact.ts), so that parsing a large answer or hashing a login's secret never holds the event
 * loop that forwards requests. The file is made here (refused when it exists), mode 0600.
 */
export class RecordingWriter {
  /** Resolves with why, when the thread fails: nothing handed over is recorded from then on. */
  readonly failed: Promise<Error>;
  private failure: Error | undefined;
  private onFailure!: (err: Error) => void;
  private closing: { promise: Promise<number>; resolve: (n: number) => void; reject: (err: Error) => void } | undefined;
  private ended = false;

  private constructor(private readonly worker: Worker) {
    this.failed = new Promise((resolve) => (this.onFailure = resolve));
  }

  /** Starts the thread and creates the file with its header; rejects when either cannot be. */
  static open(file: string, header: RecordingHeader, written: (exchanges: WrittenExchange[]) => void): Promise<RecordingWriter> {
    const worker = startBundleThread('runRecordingThread', { file, header } satisfies ThreadData, { name: 'tel-recording' });
    const writer = new RecordingWriter(worker);
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => {
        if (writer.ended) return;
        writer.ended = true;
        writer.failure = err;
        writer.onFailure(err);
        writer.closing?.reject(err);
        reject(err);
      };
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') resolve(writer);
        else if (m.type === 'written') written(m.exchanges);
        else if (m.type === 'failed') fail(new Error(m.error));
        else if (m.type === 'closed') {
          writer.ended = true;
          writer.closing?.resolve(m.exchanges);
        }
      });
      worker.on('error', fail);
      worker.once('exit', () => fail(new Error('the recording thread ended')));
    });
  }

  /** Hands over a part of a body being sent or answered (a large one is not held here whole). */
  part(seq: number, part: 'request' | 'response', chunks: Uint8Array[]): void {
    const [chunk] = transferable(chunks);
    if (chunk) this.post({ type: 'part', seq, part, chunk }, [chunk.buffer as ArrayBuffer]);
  }

  /** Hands over an exchange that ended (or failed), with the body bytes not handed over yet. */
  exchange(exchange: RawExchange): void {
    exchange.reqBody = transferable(exchange.reqBody);
    exchange.resBody = transferable(exchange.resBody);
    this.post({ type: 'exchange', exchange }, [...exchange.reqBody, ...exchange.resBody].map((c) => c.buffer as ArrayBuffer));
  }

  /** Writes what is handed over, closes the file; resolves with the number of exchanges recorded. */
  close(): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.closing) {
      let resolve!: (n: number) => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
      this.closing = { promise, resolve, reject };
      this.post({ type: 'close' });
    }
    return this.closing.promise;
  }

  private post(m: ToThread, transfer: ArrayBuffer[] = []): void {
    if (!this.failure) this.worker.postMessage(m, transfer);
  }
}

/**
 * The recording thread: opens the file, then turns each exchange handed to it into lines (its
 * minted placeholders, then the exchange, redacted), written in batches. Exported by the bundle's
 * entry (src/main.ts), which the thread's bootstrap imports.
 */
export async function runRecordingThread(data: ThreadData): Promise<void> {
  const { parentPort } = require('node:worker_threads') as { parentPort: MessagePort };
  const fs = require('node:fs') as typeof import('node:fs');
  const post = (m: FromThread) => parentPort.postMessage(m);
  lowerThreadPriority(THREAD_NICE);
  let fd: number;
  // a write may take part of its bytes (a disk filling up): the rest is written, or the error thrown
  const writeAll = (text: string) => {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
  };
  try {
    fd = fs.openSync(data.file, 'wx', 0o600);
    writeAll(`${JSON.stringify(data.header)}\n`);
  } catch (err) {
    post({ type: 'failed', error: `cannot create ${data.file}: ${(err as Error).message}` });
    return;
  }
  const redactor = new Redactor(Buffer.from(data.header.salt, 'base64'));
  const parts = new Map<number, { request: Uint8Array[]; response: Uint8Array[] }>();
  const queue: RawExchange[] = [];
  let count = 0;
  let working = false;
  let closing = false;
  // what was written is told in batches: a message an exchange cost the thread a tenth of its time
  let told: WrittenExchange[] = [];
  let telling: NodeJS.Timeout | undefined;
  const tell = () => {
    clearTimeout(telling);
    telling = undefined;
    if (told.length > 0) post({ type: 'written', exchanges: told });
    told = [];
  };

  const finish = () => {
    tell();
    try {
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      post({ type: 'closed', exchanges: count });
    } catch (err) {
      post({ type: 'failed', error: `cannot close the recording: ${(err as Error).message}` });
    }
    parentPort.close();
  };
  const work = async () => {
    working = true;
    try {
      while (queue.length > 0) {
        let text = '';
        // what came meanwhile goes in the same write
        for (const raw of queue.splice(0)) {
          const held = parts.get(raw.seq);
          parts.delete(raw.seq);
          if (held) {
            raw.reqBody = [...held.request, ...raw.reqBody];
            raw.resBody = [...held.response, ...raw.resBody];
          }
          const ex = recordedExchange(raw);
          await redactor.redact(ex);
          for (const line of redactor.takeMinted()) text += `${JSON.stringify(line)}\n`;
          text += `${JSON.stringify(ex)}\n`;
          count++;
          const { method, path, query } = ex.request;
          told.push({ seq: ex.seq, method, path, query, status: ex.response?.status ?? null, ms: ex.ms?.total ?? null, ...(ex.aborted ? { aborted: ex.aborted } : {}) });
        }
        writeAll(text);
        telling ??= setTimeout(tell, TELL_EVERY_MS);
      }
    } catch (err) {
      post({ type: 'failed', error: `cannot record an exchange: ${(err as Error).message}` });
      process.exit(1);
    }
    working = false;
    if (closing) finish();
  };

  parentPort.on('message', (m: ToThread) => {
    if (m.type === 'part') {
      let held = parts.get(m.seq);
      if (!held) parts.set(m.seq, (held = { request: [], response: [] }));
      held[m.part].push(m.chunk);
    } else if (m.type === 'exchange') {
      queue.push(m.exchange);
      if (!working) void work();
    } else if (m.type === 'close') {
      closing = true;
      if (!working) finish();
    }
  });
  post({ type: 'ready' });
}
