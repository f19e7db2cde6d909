import { createRequire } from 'node:module';
import type { MessagePort, Worker as ThreadWorker } from 'node:worker_threads';
import type { Core } from '../core-type.js';
import { releaseJob } from './run.js';
import type { DrainOutcome, HeldJob } from './executor.js';
import { ApiError } from '../errors.js';
import { lowerThreadPriority, startBundleThread } from '../util/bundle-thread.js';

const require = createRequire(import.meta.url);

/** How long a thread with nothing to do is kept before it ends (a job often follows a job). */
const IDLE_MS = 30_000;

/** The job thread's nice value: about a tenth of the core when the event loop's thread wants it too. */
const THREAD_NICE = 10;

/** A job to create from a request body as it came (see createJobFromBody). */
export interface JobRequest {
  accountId: string;
  authAccountId?: string;
  body: Buffer;
}

/** An error thrown on the thread, as a message carries it (an ApiError keeps its answer). */
type ThreadError = { message: string; api?: { status: number; kazooMessage: string; data: unknown; headers: Record<string, string> } };

/** A storage fault's error as a message carries it (what tells one: see storageFaultOf). */
type StorageError = { message: string; code?: string; errcode?: number };

/** Messages to the thread, and from it. */
type ToThread = { type: 'drain'; staleBefore?: number; held?: HeldJob } | { type: 'create'; id: number; job: JobRequest } | { type: 'stop' } | { type: 'close' };
type FromThread =
  | { type: 'ready' }
  | { type: 'claimed'; seq: number; runner: string }
  | { type: 'drained'; error?: string; held?: HeldJob; fault?: StorageError }
  | { type: 'created'; id: number; json?: string; error?: ThreadError };

/**
 * The server's side of the job thread: a worker thread with its own connection to the file that
 * runs the executor's passes (`drainJobs`), so a 100,000-number job commits its batches while
 * the event loop goes on answering. Started at the first job, ended after IDLE_MS without one. A
 * thread that cannot start or fails leaves `usable` false: the server then runs jobs itself (and
 * releases the job the thread held, for whoever takes it next).
 */
export class JobThread {
  usable = true;
  private worker: ThreadWorker | undefined;
  private ready: Promise<void> | undefined;
  private draining: { resolve: (outcome: DrainOutcome) => void; reject: (err: Error) => void } | undefined;
  private held: HeldJob | undefined;
  private idle: NodeJS.Timeout | undefined;
  private creating = new Map<number, { resolve: (json: string) => void; reject: (err: Error) => void }>();
  private nextId = 0;

  constructor(private readonly core: Core) {}

  /** Runs one executor pass on the thread (the `held` job first); resolves when it has drained (or stopped). */
  async drain(staleBefore?: number, held?: HeldJob): Promise<DrainOutcome> {
    if (this.idle) clearTimeout(this.idle);
    await this.spawn();
    const done = new Promise<DrainOutcome>((resolve, reject) => (this.draining = { resolve, reject }));
    this.post({ type: 'drain', staleBefore, held });
    const outcome = await done;
    this.idle = setTimeout(() => void this.close(), IDLE_MS).unref();
    return outcome;
  }

  /**
   * Creates a job from a request body on the thread (parsed, checked and stored there; its JSON
   * text answered). The thread's refusal (a 400) is thrown as the ApiError it was; undefined when
   * the thread cannot start.
   */
  async createJob(job: JobRequest): Promise<string | undefined> {
    if (this.idle) clearTimeout(this.idle);
    try {
      await this.spawn();
    } catch {
      return undefined; // no thread (it said why): the caller creates the job itself
    }
    const id = ++this.nextId;
    const made = new Promise<string>((resolve, reject) => this.creating.set(id, { resolve, reject }));
    // The body's memory moves to the thread rather than being copied on the event loop (2.4 MB:
    // 10 ms of the loop's time with a 100,000-number job); a body sharing its memory is copied.
    const { body } = job;
    const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
    this.worker?.postMessage({ type: 'create', id, job } satisfies ToThread, whole ? [body.buffer as ArrayBuffer] : []);
    try {
      return await made;
    } finally {
      if (!this.draining) this.idle = setTimeout(() => void this.close(), IDLE_MS).unref();
    }
  }

  /** Asks the pass under way to stop at its next batch boundary (the job is released). */
  askToStop(): void {
    this.post({ type: 'stop' });
  }

  /** Ends the thread (after the pass under way, if any, has been asked to stop and ended). */
  async close(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    this.ready = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToThread);
    await exited;
  }

  private post(m: ToThread): void {
    this.worker?.postMessage(m);
  }

  private spawn(): Promise<void> {
    if (this.ready) return this.ready;
    this.ready = new Promise<void>((resolve, reject) => {
      let worker: ThreadWorker;
      try {
        worker = startBundleThread('runJobThread', this.core.file, { name: 'tel-jobs', stdout: false, stderr: false });
      } catch (err) {
        this.fail(err as Error, reject);
        return;
      }
      this.worker = worker;
      worker.on('message', (m: FromThread | { type: 'failed'; error: string }) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'claimed') this.held = { seq: m.seq, runner: m.runner };
        else if (m.type === 'drained') {
          this.held = undefined;
          const d = this.draining;
          this.draining = undefined;
          if (m.error) d?.reject(new Error(m.error));
          else d?.resolve({ held: m.held, fault: m.fault && Object.assign(new Error(m.fault.message), { code: m.fault.code, errcode: m.fault.errcode }) });
        } else if (m.type === 'created') {
          const c = this.creating.get(m.id);
          this.creating.delete(m.id);
          if (m.json !== undefined) c?.resolve(m.json);
          else c?.reject(m.error?.api ? new ApiError(m.error.api.status, m.error.api.kazooMessage, m.error.api.data, m.error.api.headers) : new Error(m.error?.message));
        } else if (m.type === 'failed') this.fail(new Error(m.error), reject);
      });
      worker.on('error', (err) => this.fail(err, reject));
      worker.on('exit', () => {
        if (this.worker === worker) this.fail(new Error('the job thread ended'), reject);
      });
    });
    return this.ready;
  }

  /** The thread is gone: the server runs jobs itself from now on; the job it held is free again. */
  private fail(err: Error, rejectStart: (err: Error) => void): void {
    if (!this.usable) return;
    this.usable = false;
    this.worker = undefined;
    process.stderr.write(`tel: job thread failed (${err.message.split('\n')[0]}); running jobs on the main thread\n`);
    if (this.held) {
      try {
        releaseJob(this.core, this.held.seq, this.held.runner);
      } catch {
        /* locked: recovered once stalled */
      }
      this.held = undefined;
    }
    rejectStart(err);
    this.draining?.reject(err);
    this.draining = undefined;
    for (const c of this.creating.values()) c.reject(err);
    this.creating.clear();
  }
}

/** A message's bytes (a Buffer arrives as a plain Uint8Array) as a Buffer over the same memory. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The thread's side: its own core on the file, executor passes run when the server asks. Exported
 * by the bundle's entry (src/main.ts), which the thread's bootstrap imports.
 */
export async function runJobThread(file: string): Promise<void> {
  const { parentPort } = require('node:worker_threads') as { parentPort: MessagePort };
  lowerThreadPriority(THREAD_NICE);
  return serveJobThread(file, parentPort);
}

/** The thread's side over `parentPort` (the thread's; a channel's in tests): what the server's JobThread talks to. */
export async function serveJobThread(file: string, parentPort: MessagePort): Promise<void> {
  const [{ openCore, closeCore }, { drainJobs }, { jobFromBody, compileJobValidator }] = await Promise.all([
    import('../core.js'),
    import('./executor.js'),
    import('../modules/resources/jobs.js'),
  ]);
  const core = openCore(file);
  // The server's checkpointer copies the log into the file on a thread of its own: a batch
  // never waits here for a checkpoint's writes and syncs.
  core.db.exec('PRAGMA wal_autocheckpoint = 0');
  let stopping = false;
  const post = (m: FromThread) => parentPort.postMessage(m);
  parentPort.on('message', (m: ToThread) => {
    if (m.type === 'drain') {
      stopping = false;
      drainJobs(core, m.staleBefore, () => stopping, (seq, runner) => post({ type: 'claimed', seq, runner }), m.held).then(
        ({ held, fault }) => {
          const e = fault as { message?: string; code?: string; errcode?: number } | undefined;
          post({ type: 'drained', held, fault: e && { message: String(e.message), code: e.code, errcode: e.errcode } });
        },
        (err) => post({ type: 'drained', error: String((err as Error)?.stack ?? err) }),
      );
    } else if (m.type === 'create') {
      try {
        post({ type: 'created', id: m.id, json: jobFromBody(core, m.job.accountId, m.job.authAccountId, asBuffer(m.job.body)) });
      } catch (err) {
        const e = err as Error;
        const api = err instanceof ApiError ? { status: err.status, kazooMessage: err.kazooMessage, data: err.data, headers: err.headers } : undefined;
        post({ type: 'created', id: m.id, error: { message: String(e?.stack ?? err), api } });
      }
    } else if (m.type === 'stop') stopping = true;
    else if (m.type === 'close') {
      closeCore(core);
      parentPort.close();
    }
  });
  post({ type: 'ready' });
  // once ready (a message that comes meanwhile waits for it): the first job it is handed finds
  // the validator compiled
  setImmediate(compileJobValidator);
}
