import { randomBytes } from 'node:crypto';
import { isGone, processIdentity } from '../util/process-identity.js';
import { stmt, type Db } from './db.js';

/**
 * Who works on a database file, told apart one way for every worker: a worker's id is its
 * process's identity (host, pid and start time — a zombie or a reused pid never passes for it,
 * see util/process-identity.ts) and a nonce. Delivery senders write theirs on the rows they
 * send, job runners on the job they run; whoever finds such a row can tell whether its worker
 * is certainly gone and take the work back. A serving process also announces itself, so that a
 * command can ask whether a server runs on the file.
 */

/** Workers of this process that stopped (the process itself is alive). */
const retired = new Set<string>();

/** A new worker id for this process. */
export function newWorkerId(): string {
  return `${processIdentity()}/${randomBytes(4).toString('hex')}`;
}

/** Marks a worker of this process as stopped: its rows are free for the taking. */
export function retireWorker(id: string): void {
  retired.add(id);
}

/**
 * True when the worker an id names cannot be running any more: one of this process that
 * stopped, or one whose process of this host is gone. Another host's workers are never
 * certainly gone (their leases decide).
 */
export function workerIsGone(id: string): boolean {
  const identity = id.slice(0, id.lastIndexOf('/'));
  if (identity === processIdentity()) return retired.has(id);
  return isGone(identity);
}

const SERVER_KEY = 'server:';

/** Records that this process serves the database (`tel serve`). */
export function announceServer(db: Db): void {
  stmt(db, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    SERVER_KEY + processIdentity(),
    JSON.stringify({ since: Date.now() }),
  );
}

/** Removes this process's record (a clean stop). */
export function withdrawServer(db: Db): void {
  if (db.isOpen) stmt(db, 'DELETE FROM meta WHERE key = ?').run(SERVER_KEY + processIdentity());
}

/**
 * Drops every server's record from a copy of a database (a backup): the copy is served by nobody,
 * and the record of a server still running on the original would make a restore of it refuse.
 */
export function forgetServers(db: Pick<Db, 'exec'>): void {
  db.exec("DELETE FROM meta WHERE key LIKE 'server:%'");
}

/** How many servers run on the database as far as this host can tell (a killed one's record does not count). */
export function liveServers(db: Db): number {
  const rows = stmt(db, "SELECT key FROM meta WHERE key LIKE 'server:%'").all() as { key: string }[];
  return rows.filter((r) => !isGone(r.key.slice(SERVER_KEY.length))).length;
}
