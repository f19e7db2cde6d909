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

/** Records that this process serves the database (`tel serve`), and where it listens. */
export function announceServer(db: Db, url?: string): void {
  stmt(db, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    SERVER_KEY + processIdentity(),
    JSON.stringify({ since: Date.now(), ...(url ? { url } : {}) }),
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

/** A server that runs on the database, as it announced itself. */
export interface ServerRecord {
  /** its process's identity, `host/pid/start` */
  identity: string;
  /** when it started serving (unix ms) */
  since: number;
  /** where it listens, if it said */
  url?: string;
}

/** The servers that run on the database as far as this host can tell (a killed one's record does not count). */
export function serversOn(db: Db): ServerRecord[] {
  const rows = stmt(db, "SELECT key, value FROM meta WHERE key LIKE 'server:%'").all() as { key: string; value: string }[];
  return rows
    .map((r) => ({ identity: r.key.slice(SERVER_KEY.length), ...recordOf(r.value) }))
    .filter((s) => !isGone(s.identity));
}

function recordOf(value: string): { since: number; url?: string } {
  try {
    const v = JSON.parse(value) as { since?: unknown; url?: unknown };
    return { since: Number(v.since) || 0, ...(typeof v.url === 'string' ? { url: v.url } : {}) };
  } catch {
    return { since: 0 };
  }
}

/** How many servers run on the database as far as this host can tell (a killed one's record does not count). */
export function liveServers(db: Db): number {
  return serversOn(db).length;
}
