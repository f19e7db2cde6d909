import { createRequire } from 'node:module';
import type { Worker, WorkerOptions } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/**
 * A thread's bootstrap (CommonJS, evaluated): it loads the module that holds the thread's entry —
 * the very bundle the process runs, served from memory when that is a single executable's asset —
 * marks itself so that the bundle's entry runs no command, and calls the entry with its data. A
 * thread that cannot load says so in a `{type: 'failed', error}` message.
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
import(workerData.url).then((m) => m[workerData.entry](workerData.data)).catch((err) => parentPort.postMessage({ type: 'failed', error: String(err && err.stack || err) }));
`;

/** Where the code of a thread comes from: the bundle running, or (from source: tests) the project's. */
function threadCode(): { url: string; source?: string } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL('../../dist/tel.mjs', here).href };
  const sea = require('node:sea') as typeof import('node:sea');
  return sea.isSea() ? { url: here, source: sea.getAsset('tel.mjs', 'utf8') } : { url: here };
}

/**
 * Starts a worker thread that runs `entry`, a function the bundle's entry (src/main.ts) exports,
 * with `data` (structured-cloned). Throws when the thread cannot be made.
 */
export function startBundleThread(entry: string, data: unknown, options: Pick<WorkerOptions, 'name' | 'stdout' | 'stderr' | 'resourceLimits'> = {}): Worker {
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  return new Worker(BOOTSTRAP, { ...options, eval: true, workerData: { ...threadCode(), entry, data } });
}

/**
 * Lowers the calling thread's scheduling priority to `nice` (on Linux a thread has a nice value of
 * its own): on a core shared with the event loop's thread, the requests that thread answers go
 * first. Alone on the core, the thread runs as fast as before.
 */
export function lowerThreadPriority(nice: number): void {
  try {
    const { readlinkSync } = require('node:fs') as typeof import('node:fs');
    const { setPriority } = require('node:os') as typeof import('node:os');
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not allowed: the thread competes as an equal
  }
}
