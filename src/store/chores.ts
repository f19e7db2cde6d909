import { withoutWaiting, type Db } from './db.js';
import { reportDbError } from './health.js';

/**
 * A server's chore on the database every `ms` (a sweep of expired rows): run only when the write
 * lock is free at once, else at the next turn; a storage fault is reported (`label`), never thrown.
 */
export function choreEvery(db: Db, ms: number, label: string, chore: () => void): { stop(): Promise<void> } {
  const timer = setInterval(() => {
    try {
      withoutWaiting(db, chore);
    } catch (err) {
      // a file another process holds, or a full disk: the next turn takes it
      reportDbError(db, label, err);
    }
  }, ms);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
