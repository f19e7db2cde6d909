import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

/**
 * The POSIX locks a process holds on a file (Linux's `/proc/locks`). SQLite's on a database's
 * wal-index (`-shm`) tell the other processes on the file that it is in use.
 */
export function posixLocksHeld(pid: number, path: string): number {
  const { ino } = statSync(path);
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => {
      const f = l.trim().split(/\s+/);
      return f[1] === 'POSIX' && f[4] === String(pid) && f[5]?.endsWith(`:${ino}`);
    }).length;
}

/** Another process holding the database's write lock: `released` resolves once it has exited. */
export interface LockHolder {
  released: Promise<void>;
}

/**
 * Another process (as the offline CLI would be) holding the database's write lock for `ms`.
 * `released` is made when the process starts: on a loaded machine its exit can come before the
 * caller looks for it, and a listener attached then would wait forever.
 */
export async function holdWriteLock(file: string, ms: number): Promise<LockHolder> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(${JSON.stringify(file)});
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('held\\n');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    void released.then(() => reject(new Error('the process meant to hold the write lock exited before it held it')));
  });
  return { released };
}
