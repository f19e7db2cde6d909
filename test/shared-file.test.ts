import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTel } from './helpers/cli.js';
import { posixLocksHeld } from './helpers/lock.js';
import { tempDir } from './helpers/server.js';
import { startTelServe, type TelProcess } from './helpers/tel-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The contract's promise: the CLI works on the database file while a server runs on it. SQLite
 * tells the processes on a file apart by the POSIX locks each holds on its wal-index (`-shm`); a
 * process that loses its own (closing any descriptor of the file drops them all) leaves the next
 * one to open the file free to rebuild the index under it.
 */
describe('a server and CLI commands on one file', () => {
  const tmp = tempDir('tel-shared-file-');
  const db = join(tmp.dir, 'lab.db');
  let serve: TelProcess & { url: string };

  beforeAll(async () => {
    const init = await spawnTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw-admin-1']);
    expect(init.code, init.stderr).toBe(0);
    serve = await startTelServe(db);
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
    tmp.cleanup();
  });

  it('the server stays up and the file sound while offline commands write, one after another, and clients read', async () => {
    // clients keep the server reading the file (a token is looked up there) while the commands run
    let reading = true;
    const reads = (async () => {
      let answered = 0;
      while (reading) {
        const res = await fetch(`${serve.url}/v2/accounts`, { headers: { 'x-auth-token': 'not-a-token' } }).catch(() => undefined);
        if (res) {
          await res.arrayBuffer();
          answered++;
        } else {
          await sleep(20);
        }
      }
      return answered;
    })();
    for (let i = 1; i <= 12; i++) {
      const set = await spawnTel(['config', 'set', 'crossbar.auth', 'token_expiry_s', String(3600 + i), '--db', db]);
      expect(set.code, set.stderr).toBe(0);
      // the server's checkpointer looks at the log a tick (100 ms) after a commit it did not make
      await sleep(250);
      expect(serve.child.exitCode, `the server ended after write ${i}: ${serve.stderr}`).toBeNull();
      expect(serve.child.signalCode, `the server was killed after write ${i}: ${serve.stderr}`).toBeNull();
      // without them the next command to open the file takes itself for its only user and rebuilds
      // the wal-index under the server (which then dies of SIGBUS, or reads a log rewritten under it)
      expect(posixLocksHeld(serve.child.pid!, `${db}-shm`), `the server's locks on the wal-index after write ${i}`).toBeGreaterThan(0);
    }
    reading = false;
    expect(await reads).toBeGreaterThan(0);
    const about = await fetch(`${serve.url}/v2/about`);
    expect(about.status).toBeLessThan(500);
    const get = await spawnTel(['config', 'get', 'crossbar.auth', 'token_expiry_s', '--db', db]);
    expect(get.stdout.trim()).toBe('3612');
    const file = new DatabaseSync(db, { readOnly: true, timeout: 5000 });
    try {
      expect(file.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      file.close();
    }
  }, 60_000);
});
