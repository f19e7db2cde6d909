import { createRequire } from 'node:module';
import { scrypt, type ScryptOptions } from 'node:crypto';
import type { Worker as ThreadWorker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/**
 * Threads that hash passwords for a server, one per core it may use, each at a lower scheduling
 * priority than the event loop's thread (a Linux thread's own nice value). Hashed on libuv's
 * threadpool instead, four threads at the event loop's priority took the cores from it: under the
 * mixed bench a third of the loop's samples were spent waiting for a core right after handing a
 * hash over. Here a request is answered first and hashes take the time left.
 */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
try { require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), 10); } catch {}
parentPort.on('message', ({ id, form, salt, keylen, options }) => {
  try { parentPort.postMessage({ id, hash: scryptSync(form, salt, keylen, options) }); }
  catch (err) { parentPort.postMessage({ id, error: String((err && err.message) || err) }); }
});
`;

interface Hashing {
  form: string;
  salt: Buffer;
  keylen: number;
  options: ScryptOptions;
  resolve: (hash: Buffer) => void;
  reject: (err: Error) => void;
}

interface HashThread {
  worker: ThreadWorker;
  /** hashes handed to the thread and not answered yet, by message id */
  pending: Map<number, Hashing>;
  /** ends the thread once it has been idle HASH_THREAD_IDLE_MS */
  idle?: NodeJS.Timeout;
}

/**
 * How long a hash thread stays, by default, without a hash to compute: then it ends, and the next
 * password starts one again (its start runs on the new thread, not the event loop). A thread holds
 * 10-18 MB of RSS (its own V8 heap and Node's bootstrap), which a server that hashed one login at
 * its start would otherwise keep for good.
 */
export const HASH_THREAD_IDLE_MS = 10_000;
let idleMs = HASH_THREAD_IDLE_MS;

/**
 * Sets how long an idle hash thread stays, those idle now included (tests shorten it); answers the
 * previous value.
 */
export function keepIdleHashThreadsFor(ms: number): number {
  const previous = idleMs;
  idleMs = ms;
  for (const t of threads) if (t.pending.size === 0) idleFor(t);
  return previous;
}

/** The hash threads running now, idle ones included. */
export function hashThreadsRunning(): number {
  return threads.length;
}

/** (Re)starts the wait after which `thread`, idle, ends. */
function idleFor(thread: HashThread): void {
  clearTimeout(thread.idle);
  thread.idle = setTimeout(() => retire(thread), idleMs).unref();
}

/**
 * Hashes handed to a thread at once: the next one waits in the thread's own message queue, so
 * the thread starts it the moment it answers the last, instead of idling until the event loop —
 * which may be answering requests, or waiting for a core the hash threads hold — hands it over.
 */
const PER_THREAD = 2;

const threads: HashThread[] = [];
const queue: Hashing[] = [];
let nextId = 0;
/** false once threads cannot be started: libuv's threadpool hashes instead */
let usable = true;

/**
 * A hash that comes alone — no thread running, none in flight, none asked for in the last
 * LONE_HASH_MS — is computed on libuv's threadpool instead of starting a thread for it: a thread
 * costs some 20 MB of RSS for the HASH_THREAD_IDLE_MS it stays, which a server whose only hash is
 * its first login (a client, a benchmark) would carry at its start. One hash on the pool takes
 * its core from the event loop for a few milliseconds, once; a second one close behind it is a
 * stream of logins, and the niced threads take it.
 */
export const LONE_HASH_MS = 1_000;
let lastHashAt = -Infinity;
let onPool = 0;

/** Computes scrypt off the event loop, on a hash thread (or, without them, libuv's threadpool). */
export function scryptOffLoop(form: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  if (!usable) return scryptOnPool(form, salt, keylen, options);
  const now = performance.now();
  const alone = threads.length === 0 && onPool === 0 && now - lastHashAt >= LONE_HASH_MS;
  lastHashAt = now;
  if (alone) {
    onPool++;
    return scryptOnPool(form, salt, keylen, options).finally(() => onPool--);
  }
  return new Promise((resolve, reject) => {
    queue.push({ form, salt, keylen, options, resolve, reject });
    dispatch();
  });
}

function scryptOnPool(form: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(form, salt, keylen, options, (err, out) => (err ? reject(err) : resolve(out))));
}

function dispatch(): void {
  while (queue.length > 0) {
    // an idle thread first, then a new one, then a second hash for a thread at work
    let thread = threads.find((t) => t.pending.size === 0);
    if (!thread && threads.length < size()) thread = start();
    thread ??= threads.find((t) => t.pending.size < PER_THREAD);
    if (!thread) return;
    const job = queue.shift()!;
    const id = ++nextId;
    thread.pending.set(id, job);
    clearTimeout(thread.idle);
    thread.worker.ref();
    thread.worker.postMessage({ id, form: job.form, salt: job.salt, keylen: job.keylen, options: job.options });
  }
}

/** As many threads as cores this process may run on (one when pinned to one). */
function size(): number {
  const { availableParallelism } = require('node:os') as typeof import('node:os');
  return Math.max(1, availableParallelism());
}

function start(): HashThread | undefined {
  let worker: ThreadWorker;
  try {
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
    worker = new Worker(THREAD_SOURCE, { eval: true, name: 'tel-hash', resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
  } catch {
    giveUp();
    return undefined;
  }
  const thread: HashThread = { worker, pending: new Map() };
  worker.unref();
  worker.on('message', (m: { id: number; hash?: Uint8Array; error?: string }) => {
    const job = thread.pending.get(m.id);
    if (!job) return;
    thread.pending.delete(m.id);
    if (thread.pending.size === 0) {
      worker.unref();
      idleFor(thread);
    }
    if (m.hash) job.resolve(Buffer.from(m.hash.buffer, m.hash.byteOffset, m.hash.byteLength));
    else job.reject(new Error(m.error));
    dispatch();
  });
  const lost = () => {
    const i = threads.indexOf(thread);
    if (i >= 0) threads.splice(i, 1);
    const jobs = [...thread.pending.values()];
    thread.pending.clear();
    giveUp();
    // the hashes handed over are computed again, on the threadpool
    for (const job of jobs) scryptOnPool(job.form, job.salt, job.keylen, job.options).then(job.resolve, job.reject);
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  threads.push(thread);
  return thread;
}

/** Ends a thread that has nothing to do (its exit is no loss). */
function retire(thread: HashThread): void {
  if (thread.pending.size > 0) return;
  const i = threads.indexOf(thread);
  if (i >= 0) threads.splice(i, 1);
  thread.worker.removeAllListeners('exit');
  thread.worker.removeAllListeners('error');
  void thread.worker.terminate();
}

/** No hash threads (they cannot start, or one failed): libuv's threadpool hashes what waits. */
function giveUp(): void {
  if (!usable) return;
  usable = false;
  for (const job of queue.splice(0)) scryptOnPool(job.form, job.salt, job.keylen, job.options).then(job.resolve, job.reject);
  for (const t of threads.splice(0)) void t.worker.terminate();
}
