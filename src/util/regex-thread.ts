import { createRequire } from 'node:module';
import type { Worker as ThreadWorker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/**
 * A thread that tests regular expressions a tenant wrote (a click-to-call whitelist) against a
 * string. JavaScript's regular expressions backtrack, and a pattern such as `(1+)+2` takes
 * seconds on thirty characters: on the event loop it would hold every request. Here a test that
 * runs past its time is stopped with its thread (a new one starts for the next test), and
 * answered as such.
 */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const compiled = new Map();
function regexOf(source) {
  if (!compiled.has(source)) {
    let re = null;
    try { re = new RegExp(source); } catch {}
    if (compiled.size > 1000) compiled.clear();
    compiled.set(source, re);
  }
  return compiled.get(source);
}
parentPort.on('message', ({ id, patterns, subject }) => {
  parentPort.postMessage({ id, matched: patterns.some((p) => { const re = regexOf(p); return re !== null && re.test(subject); }) });
});
`;

/** How long a test may run before it is stopped. */
export const REGEX_TIME_LIMIT_MS = 250;

interface Pending {
  resolve: (matched: boolean | 'timeout') => void;
  timer: NodeJS.Timeout;
}

/** The thread, and when it is ready to take tests (a test's time starts then, not while the thread starts). */
let thread: { worker: ThreadWorker; online: Promise<void> } | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function threadOf(): { worker: ThreadWorker; online: Promise<void> } {
  if (thread) return thread;
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(THREAD_SOURCE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
  worker.unref();
  // settled too when the thread fails before it is up
  const online = new Promise<void>((resolve) => {
    for (const event of ['online', 'error', 'exit']) worker.once(event, () => resolve());
  });
  worker.on('message', (m: { id: number; matched: boolean }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (pending.size === 0) worker.unref();
    p.resolve(m.matched);
  });
  // a thread that fails or is stopped takes its tests with it: each answered as timed out
  const lost = () => {
    if (thread?.worker === worker) thread = undefined;
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.resolve('timeout');
    }
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  thread = { worker, online };
  return thread;
}

/**
 * Whether any of `patterns` (JavaScript regular expressions; one that does not compile matches
 * nothing) matches `subject`, tested on a thread of its own; `timeout` when the test ran past
 * `limitMs` (the thread is then stopped).
 */
export async function anyPatternMatches(patterns: readonly string[], subject: string, limitMs = REGEX_TIME_LIMIT_MS): Promise<boolean | 'timeout'> {
  const { worker, online } = threadOf();
  worker.ref();
  await online;
  if (thread?.worker !== worker) return 'timeout';
  return new Promise((resolve) => {
    const id = ++nextId;
    const timer = setTimeout(() => {
      // the test still runs: only stopping its thread ends it
      if (thread?.worker === worker) thread = undefined;
      void worker.terminate();
    }, limitMs);
    pending.set(id, { resolve, timer });
    worker.postMessage({ id, patterns, subject });
  });
}
