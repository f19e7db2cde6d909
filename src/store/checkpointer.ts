import type { Db } from './db.js';

/** How often a serving process checkpoints the write-ahead log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 250;

/** A running checkpointer; `stop()` ends it and leaves the WAL checkpointed. */
export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * The checkpoint policy of a serving process: the WAL is copied into the database file on a
 * timer rather than by whichever commit crosses SQLite's threshold, so the sync a checkpoint costs
 * comes a few times a second, never in the middle of a burst of commits. A PASSIVE checkpoint
 * never waits for a reader or writer (the CLI's included).
 */
export function startCheckpointer(db: Db, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const checkpoint = () => {
    try {
      if (db.isOpen) db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch (err) {
      process.stderr.write(`tel: checkpoint failed: ${(err as Error)?.message ?? err}\n`);
    }
  };
  db.exec('PRAGMA wal_autocheckpoint = 0');
  const timer = setInterval(checkpoint, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      if (!db.isOpen) return;
      db.exec('PRAGMA wal_autocheckpoint = 1000');
      checkpoint();
    },
  };
}
