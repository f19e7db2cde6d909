import { stmt } from '../store/db.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Core } from '../core-type.js';

const PREFIX = 'job_executor:';

function key(): string {
  return `${PREFIX}${hostname()}:${process.pid}`;
}

/** Records that this process runs a job executor on the database (a serving `tel serve`). */
export function announceExecutor(core: Core): void {
  stmt(core.db, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
    .run(key(), JSON.stringify({ host: hostname(), pid: process.pid, since: Date.now() }));
}

/** Removes this process's record (clean stop). */
export function withdrawExecutor(core: Core): void {
  if (core.db.isOpen) stmt(core.db, 'DELETE FROM meta WHERE key = ?').run(key());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * How many servers with a job executor are running on this database, as far as this host can
 * tell: records of killed servers are ignored (their pid is gone); another host's count as live.
 */
export function liveExecutors(core: Core): number {
  const rows = core.db.prepare("SELECT value FROM meta WHERE key LIKE 'job_executor:%'").all() as { value: string }[];
  let n = 0;
  for (const r of rows) {
    const rec = JSON.parse(r.value) as { host: string; pid: number };
    if (rec.host !== hostname() || alive(rec.pid)) n++;
  }
  return n;
}

/** A runner token: this host and process, and a nonce per claim. */
export function newRunnerToken(): string {
  return `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
}

/** True when a runner token names a process of this host that no longer exists (a killed executor). */
export function runnerIsGone(runner: string): boolean {
  const parts = runner.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(':');
  return host === hostname() && Number.isInteger(pid) && !alive(pid);
}
