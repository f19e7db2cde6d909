import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

/** How often a serving process checkpoints the write-ahead log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** The checkpointing thread: its own connection to the file, a PASSIVE checkpoint on a timer. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file, { timeout: 1000 });
const checkpoint = () => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** A running checkpointer; `stop()` ends it and leaves the WAL checkpointed. */
export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Takes WAL checkpoints off the event loop while a server runs on `file`. A checkpoint copies
 * every page written since the last one into the database file and then syncs it: tens of
 * milliseconds a second under load, which on the main thread stall every request and delivery.
 * SQLite's own checkpoints (run by whichever commit crosses the WAL threshold) are turned off on
 * `db` meanwhile and back on at `stop()`; a PASSIVE checkpoint never blocks a writer or reader.
 * Where no thread can be started, the commits checkpoint as SQLite does by default.
 */
export function startCheckpointer(db: Db, file: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return { stop: async () => {} };
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs } });
  } catch (err) {
    process.stderr.write(`tel: checkpoints stay with the writers (no thread: ${(err as Error).message})\n`);
    return { stop: async () => {} };
  }
  db.exec('PRAGMA wal_autocheckpoint = 0');
  let failed = false;
  const fallBack = (why: string) => {
    if (failed) return;
    failed = true;
    process.stderr.write(`tel: checkpoint thread: ${why}; checkpoints go back to the writers\n`);
    if (db.isOpen) db.exec('PRAGMA wal_autocheckpoint = 1000');
  };
  worker.on('message', (m: { error?: string }) => {
    if (m?.error) process.stderr.write(`tel: checkpoint failed: ${m.error}\n`);
  });
  worker.on('error', (err) => fallBack(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // the thread never keeps a process alive that has nothing else to do
  worker.unref();
  return {
    async stop() {
      // held until the last checkpoint is done
      worker.ref();
      if (!failed) worker.postMessage('stop');
      await exited;
      if (db.isOpen) db.exec('PRAGMA wal_autocheckpoint = 1000');
    },
  };
}
