import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openDb } from './db.js';
import { announceServer, liveServers, newWorkerId, retireWorker, withdrawServer, workerIsGone } from './presence.js';
import { processIdentity } from '../util/process-identity.js';
import { tempDir } from '../../test/helpers/server.js';

describe('presence on a database file', () => {
  it('counts this server while it is announced, and not a record left by a process that is gone', () => {
    const tmp = tempDir();
    const db = openDb(`${tmp.dir}/tel.db`);
    try {
      expect(liveServers(db)).toBe(0);
      announceServer(db);
      expect(liveServers(db)).toBe(1);
      // a server killed without withdrawing: a process that ran and exited, with its start time
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`server:${hostname()}/${child.stdout}/1`, '{}');
      expect(liveServers(db)).toBe(1);
      withdrawServer(db);
      expect(liveServers(db)).toBe(0);
    } finally {
      db.close();
      tmp.cleanup();
    }
  });

  it("tells a stopped worker of this process, and another process's gone one, from a live one", () => {
    const live = newWorkerId();
    const stopped = newWorkerId();
    retireWorker(stopped);
    expect(live.startsWith(`${processIdentity()}/`)).toBe(true);
    expect(workerIsGone(live)).toBe(false);
    expect(workerIsGone(stopped)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(workerIsGone(`${hostname()}/${child.stdout}/1/abcd`)).toBe(true);
    // another host's worker is never certainly gone: its lease decides
    expect(workerIsGone(`elsewhere.example/1/1/abcd`)).toBe(false);
  });
});
