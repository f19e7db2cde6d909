import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { framesToCopy, startCheckpointer } from './checkpointer.js';
import { openDb, transaction, type Db } from './db.js';
import { until } from '../../test/helpers/tel-process.js';
import { posixLocksHeld } from '../../test/helpers/lock.js';

/** Pages are copied into the database file only by a checkpoint: its size tells whether one ran. */
const fileBytes = (file: string) => statSync(file).size;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes about `kib` KiB in one transaction. */
function write(db: Db, kib: number): void {
  transaction(db, () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < kib; i++) insert.run('x'.repeat(1000));
  });
}

/** Keeps the event loop busy for `ms`, committing a little every few milliseconds (unless told not to). */
async function busyFor(db: Db, ms: number, commit = true): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const spin = Date.now() + 8;
    while (Date.now() < spin) if (commit) write(db, 1);
    await new Promise((r) => setImmediate(r));
  }
}

/** Waits until the database file has kept its size for `ms` (no checkpoint under way). */
async function steady(file: string, ms = 400): Promise<void> {
  let size = fileBytes(file);
  let since = Date.now();
  const deadline = Date.now() + 20_000;
  while (Date.now() - since < ms && Date.now() < deadline) {
    await sleep(20);
    if (fileBytes(file) !== size) (size = fileBytes(file)), (since = Date.now());
  }
}

describe('checkpointer', () => {
  let dir: string;
  let file: string;
  let db: Db;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tel-ckpt-'));
    file = join(dir, 'c.db');
    db = openDb(file);
    db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  });
  afterEach(() => {
    if (db.isOpen) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the file at the first quiet moment, on its own thread', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000 });
    try {
      const before = fileBytes(file);
      write(db, 2000);
      // committed, but in the log only
      expect(fileBytes(file)).toBe(before);
      const deadline = Date.now() + 5000;
      while (fileBytes(file) < before + 2_000_000 && Date.now() < deadline) await sleep(20);
      expect(fileBytes(file)).toBeGreaterThanOrEqual(before + 2_000_000);
      await sleep(200);
      // the log was wholly copied: the next commit starts it over instead of growing it
      const wal = fileBytes(`${file}-wal`);
      write(db, 10);
      expect(fileBytes(`${file}-wal`)).toBe(wal);
    } finally {
      await ckpt.stop();
    }
  });

  it("looks at the log without dropping the process's locks on the file (another process would rebuild the wal-index under the server)", async () => {
    write(db, 1);
    const held = posixLocksHeld(process.pid, `${file}-shm`);
    expect(held, "SQLite's lock on the wal-index, held while the connection is open").toBeGreaterThan(0);
    expect(framesToCopy(db)).toBeGreaterThan(0);
    expect(posixLocksHeld(process.pid, `${file}-shm`)).toBe(held);
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 100, threadIdleMs: 300 });
    try {
      write(db, 100);
      await until(() => framesToCopy(db) === 0, 'the log to be copied');
      expect(posixLocksHeld(process.pid, `${file}-shm`)).toBe(held);
    } finally {
      await ckpt.stop();
    }
  });

  it('leaves a log of a few pages to a quiet moment while the server is busy, however long past the usual deferral', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 100, smallLogMaxDeferMs: 60_000 });
    try {
      // busy before the commit, and for 8 times the deferral of a larger log after it
      await busyFor(db, 100, false);
      write(db, 1);
      await busyFor(db, 800, false);
      expect(framesToCopy(db), 'a login-sized commit waits in the log').toBeGreaterThan(0);
      expect(ckpt.threadRunning, 'no thread started for it').toBe(false);
      // the first quiet moment copies it
      await until(() => framesToCopy(db) === 0, 'the small log to be copied once quiet');
    } finally {
      await ckpt.stop();
    }
  });

  it('leaves the log alone while the server is busy, then checkpoints once it has waited the longest it may', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 1000 });
    try {
      // a first checkpoint at a quiet moment: the thread is up
      const start = fileBytes(file);
      write(db, 100);
      const ready = Date.now() + 20_000;
      while (fileBytes(file) === start && Date.now() < ready) await sleep(20);
      expect(fileBytes(file)).toBeGreaterThan(start);
      await steady(file);
      // then busy without pause (the loop busy before the first commit), committing all the time
      const before = fileBytes(file);
      await busyFor(db, 150, false);
      const busySince = Date.now();
      let copiedAt: number | undefined;
      while (copiedAt === undefined && Date.now() - busySince < 20_000) {
        await busyFor(db, 50);
        if (fileBytes(file) > before) copiedAt = Date.now();
      }
      expect(copiedAt, 'a busy server checkpoints at the latest after the longest deferral').toBeDefined();
      // not before: the pages waited in the log while the loop was busy
      expect(copiedAt! - busySince).toBeGreaterThanOrEqual(1000);
    } finally {
      await ckpt.stop();
    }
  });

  it('empties a log a burst made large once the server has been quiet a while, not before', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000, truncateAfterMs: 600 });
    try {
      write(db, 10_000);
      const burstEnd = Date.now();
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(9_000_000);
      // copied at the first quiet moment, but the log keeps its size until the quiet lasts
      await sleep(300);
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(9_000_000);
      const deadline = Date.now() + 10_000;
      while (fileBytes(`${file}-wal`) > 0 && Date.now() < deadline) await sleep(20);
      expect(fileBytes(`${file}-wal`)).toBe(0);
      expect(Date.now() - burstEnd).toBeGreaterThanOrEqual(600);
      // nothing was lost: the rows are in the file
      expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBeGreaterThanOrEqual(10_000);
    } finally {
      await ckpt.stop();
    }
  });

  it("keeps a large log through the pauses between a lab's bursts: its reset would empty the server's row caches", async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000 });
    try {
      write(db, 10_000);
      const version = () => (db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
      const before = version();
      await until(() => framesToCopy(db) === 0, 'the burst to be copied');
      await sleep(2_500);
      // copied, quiet for seconds, and still the log it was: nothing told this connection the file changed
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(9_000_000);
      expect(version()).toBe(before);
    } finally {
      await ckpt.stop();
    }
  });

  it('empties it also when small commits go on (heartbeats, a trickle of calls) while the loop is mostly idle', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000, truncateAfterMs: 300 });
    try {
      write(db, 8_000);
      const deadline = Date.now() + 10_000;
      while (fileBytes(`${file}-wal`) > 1_000_000 && Date.now() < deadline) {
        write(db, 1);
        await sleep(50);
      }
      expect(fileBytes(`${file}-wal`)).toBeLessThan(1_000_000);
    } finally {
      await ckpt.stop();
    }
  });

  it('leaves the log alone while another connection reads from it, and empties it once the reader is done', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000, truncateAfterMs: 300 });
    const reader = openDb(file);
    try {
      write(db, 6_000);
      // a long read (a CLI walking a listing) holds a snapshot that needs the log
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
      await sleep(1200);
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(5_000_000);
      reader.exec('COMMIT');
      const deadline = Date.now() + 10_000;
      while (fileBytes(`${file}-wal`) > 0 && Date.now() < deadline) await sleep(20);
      expect(fileBytes(`${file}-wal`)).toBe(0);
    } finally {
      reader.close();
      await ckpt.stop();
    }
  });

  it('stops with everything checkpointed, and a stopped process leaves no thread running', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 60_000 });
    write(db, 500);
    await ckpt.stop();
    const other = openDb(file);
    try {
      const r = other.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number; checkpointed: number };
      expect(r.checkpointed).toBe(r.log);
      expect(fileBytes(file)).toBeGreaterThan(500_000);
    } finally {
      other.close();
    }
  });

  it('copies a log of a few pages at a quiet moment on its own connection, without starting the thread', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 200, threadIdleMs: 300 });
    try {
      write(db, 8);
      const frames = framesToCopy(db)!;
      expect(frames).toBeGreaterThan(0);
      expect(frames).toBeLessThanOrEqual(64);
      await until(() => framesToCopy(db) === 0, 'the small log to be copied');
      expect(ckpt.threadRunning, 'no thread for a few pages').toBe(false);
    } finally {
      await ckpt.stop();
    }
  });

  it('starts its thread for pages to copy and ends it once idle; a commit that wrote no page starts none', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 200, threadIdleMs: 300 });
    try {
      // nothing to copy: no thread, however long
      await sleep(300);
      expect(ckpt.threadRunning).toBe(false);
      const before = fileBytes(file);
      // more than a few pages (a log of a few is copied without the thread)
      write(db, 1000);
      await until(() => fileBytes(file) >= before + 200_000, 'the pages to be copied');
      expect(ckpt.threadRunning).toBe(true);
      await until(() => !ckpt.threadRunning, 'the idle thread to end');
      // a sweep that deletes nothing commits a transaction that writes no page
      transaction(db, () => db.prepare('DELETE FROM t WHERE id < 0').run());
      await sleep(300);
      expect(ckpt.threadRunning).toBe(false);
      // the next pages start a thread again
      const grown = fileBytes(file);
      write(db, 1000);
      await until(() => fileBytes(file) >= grown + 200_000, 'the new pages to be copied');
    } finally {
      await ckpt.stop();
    }
    expect(ckpt.threadRunning).toBe(false);
  });

  it('keeps its thread between bursts of writes seconds apart (each start and end of one throws away optimised code of the server)', async () => {
    const ckpt = startCheckpointer(db, file, { tickMs: 20, maxDeferMs: 200 });
    try {
      const before = fileBytes(file);
      write(db, 1000);
      await until(() => fileBytes(file) >= before + 200_000, 'the pages to be copied');
      expect(ckpt.threadRunning).toBe(true);
      // a lab's rounds of calls, the delivery yardstick's: 5-8 s apart
      const quietUntil = Date.now() + 6_000;
      while (Date.now() < quietUntil) {
        await sleep(100);
        expect(ckpt.threadRunning, 'the thread through a quiet stretch of 6 s').toBe(true);
      }
    } finally {
      await ckpt.stop();
    }
  }, 20_000);

  it('checkpoints an in-memory database on the connection itself, without failing', async () => {
    const mem = openDb(':memory:');
    const ckpt = startCheckpointer(mem, ':memory:', { tickMs: 20 });
    await sleep(300);
    await ckpt.stop();
    mem.close();
  });
});
