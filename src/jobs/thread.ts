import { createRequire } from 'node:module';
import type { MessagePort, Worker as ThreadWorker } from 'node:worker_threads';
import type { Core } from '../core-type.js';
import { releaseJob } from './run.js';

const require = createRequire(import.meta.url);

/** How long a thread with nothing to do is kept before it ends (a job often follows a job). */
const IDLE_MS = 30_000;

/** Messages to the thread, and from it. */
type ToThread = { type: 'drain'; staleBefore?: number } | { type: 'stop' } | { type: 'close' };
type FromThread = { type: 'ready' } | { type: 'claimed'; seq: number; runner: string } | { type: 'drained'; error?: string };

/**
 * The thread's bootstrap (CommonJS, evaluated): it loads the module that holds `runJobThread` —
 * the very bundle the server runs, served from memory when that is a single executable's asset —
 * and marks itself so that the bundle's entry runs no command.
 */
const BOOTSTRAP = `
const { workerData, parentPort } = require('node:worker_threads');
globalThis.telThread = true;
if (workerData.source !== undefined) {
  require('node:module').registerHooks({
    resolve: (specifier, context, next) => specifier === workerData.url ? { url: specifier, format: 'module', shortCircuit: true } : next(specifier, context),
    load: (url, context, next) => url === workerData.url ? { format: 'module', source: workerData.source, shortCircuit: true } : next(url, context),
  });
}
import(workerData.url).then((m) => m.runJobThread(workerData.file)).catch((err) => parentPort.postMessage({ type: 'failed', error: String(err && err.stack || err) }));
`;

/** Where the code of the thread comes from: the bundle running, or (from source: tests) the project's. */
function threadCode(): { url: string; source?: string } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL('../../dist/tel.mjs', here).href };
  const sea = require('node:sea') as typeof import('node:sea');
  return sea.isSea() ? { url: here, source: sea.getAsset('tel.mjs', 'utf8') } : { url: here };
}

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
  private draining: { resolve: () => void; reject: (err: Error) => void } | undefined;
  private held: { seq: number; runner: string } | undefined;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly core: Core) {}

  /** Runs one executor pass on the thread; resolves when it has drained (or stopped). */
  async drain(staleBefore?: number): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    await this.spawn();
    const done = new Promise<void>((resolve, reject) => (this.draining = { resolve, reject }));
    this.post({ type: 'drain', staleBefore });
    await done;
    this.idle = setTimeout(() => void this.close(), IDLE_MS).unref();
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
        const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
        const code = threadCode();
        worker = new Worker(BOOTSTRAP, { eval: true, workerData: { ...code, file: this.core.file }, stdout: false, stderr: false });
      } catch (err) {
        reject(err as Error);
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
          else d?.resolve();
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
  }
}

/**
 * The thread's side: its own core on the file, executor passes run when the server asks. Exported
 * by the bundle's entry (src/main.ts), which the thread's bootstrap imports.
 */
export async function runJobThread(file: string): Promise<void> {
  const { parentPort } = require('node:worker_threads') as { parentPort: MessagePort };
  const [{ openCore, closeCore }, { drainJobs }] = await Promise.all([import('../core.js'), import('./executor.js')]);
  const core = openCore(file);
  let stopping = false;
  const post = (m: FromThread) => parentPort.postMessage(m);
  parentPort.on('message', (m: ToThread) => {
    if (m.type === 'drain') {
      stopping = false;
      drainJobs(core, m.staleBefore, () => stopping, (seq, runner) => post({ type: 'claimed', seq, runner })).then(
        () => post({ type: 'drained' }),
        (err) => post({ type: 'drained', error: String((err as Error)?.stack ?? err) }),
      );
    } else if (m.type === 'stop') stopping = true;
    else if (m.type === 'close') {
      closeCore(core);
      parentPort.close();
    }
  });
  post({ type: 'ready' });
}
