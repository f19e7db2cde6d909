import { readdirSync, readFileSync } from 'node:fs';

/** The worker threads this process runs now (Node names each `WorkerThread`; Linux only). */
export function workerThreads(): number {
  return readdirSync('/proc/self/task').filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'WorkerThread';
    } catch {
      return false; // ended meanwhile
    }
  }).length;
}

/** Waits (10 s at most) until `ok()`. */
export async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
