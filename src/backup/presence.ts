import type { DatabaseSync } from 'node:sqlite';
import type { Core } from '../core-type.js';
import { liveExecutors } from '../jobs/presence.js';

/**
 * Whether a `tel serve` runs on the database (as far as this host can tell: a server killed
 * without a chance to say so does not count once its process is gone).
 */
export function serverRunning(core: Core): boolean {
  return liveExecutors(core) > 0;
}

/**
 * Drops the records of the servers that ran on a database from a copy of it (a backup): the copy
 * is served by nobody, and a record of a server still running elsewhere would make `tel restore`
 * of the copy refuse.
 */
export function forgetServers(copy: DatabaseSync): void {
  copy.exec("DELETE FROM meta WHERE key LIKE 'job_executor:%'");
}
