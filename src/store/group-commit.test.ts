import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitCount, onSettle, openDb, type Db } from './db.js';
import { groupCommit, limitUnitsPerCommit } from './group-commit.js';

describe('group commit', () => {
  let dir: string;
  let db: Db;
  let other: Db;
  const rows = (conn: Db) => (conn.prepare('SELECT v FROM t ORDER BY v').all() as { v: string }[]).map((r) => r.v);
  const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v).changes;

  /**
   * A loopback connection, its two ends: what one end writes is readable by the other at the next
   * poll for I/O. `close` ends both and the listener.
   */
  async function loopback(): Promise<{ client: Socket; peer: Socket; close: () => Promise<void> }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const received = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', resolve));
    const peer = await received;
    const close = async () => {
      client.destroy();
      peer.destroy();
      await new Promise((resolve) => server.close(resolve));
    };
    return { client, peer, close };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tel-group-'));
    db = openDb(join(dir, 'g.db'));
    db.exec('CREATE TABLE IF NOT EXISTS t (v TEXT PRIMARY KEY)');
    other = openDb(join(dir, 'g.db'));
  });
  afterEach(() => {
    db.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the units of one turn together, each answered once another connection can read it', async () => {
    const seen: string[][] = [];
    const units = ['a', 'b', 'c'].map((v) => groupCommit(db, insert(v)).then((n) => (seen.push(rows(other)), n)));
    // nothing is written before the turn ends
    expect(rows(other)).toEqual([]);
    expect(await Promise.all(units)).toEqual([1, 1, 1]);
    for (const s of seen) expect(s).toEqual(['a', 'b', 'c']);
  });

  it('takes as many units a commit as a limit allows: the others commit in the next turns, after the I/O that came meanwhile', async () => {
    // what the first unit writes is readable at the next poll for I/O
    const { client, peer, close } = await loopback();
    const order: string[] = [];
    let seenWhenRead: number | undefined;
    peer.once('data', () => (seenWhenRead = order.length));
    const values = (prefix: string) => Array.from({ length: 20 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
    const submit = (vs: string[]) =>
      Promise.all(
        vs.map((v) =>
          groupCommit(db, () => {
            if (order.length === 0) client.write('x');
            order.push(v);
            return db.prepare('INSERT INTO t (v) VALUES (?)').run(v).changes;
          }),
        ),
      );
    const unlimit = limitUnitsPerCommit(db, () => 8);
    try {
      let before = commitCount(db);
      expect(await submit(values('a'))).toEqual(values('a').map(() => 1));
      expect(commitCount(db) - before).toBe(3);
      expect(order).toEqual(values('a'));
      expect(rows(other)).toEqual(values('a'));
      // the byte written during the first commit was read before the second one ran
      expect(seenWhenRead).toBe(8);
      // without the limit, the units of one turn share one commit
      unlimit();
      before = commitCount(db);
      expect(await submit(values('b'))).toEqual(values('b').map(() => 1));
      expect(commitCount(db) - before).toBe(1);
    } finally {
      unlimit();
      await close();
    }
  });

  it('waits one more turn: a unit whose request came in the next poll for I/O joins the commit', async () => {
    const { client, peer, close } = await loopback();
    try {
      // a client asks again as soon as it is answered: its request is read at the next poll
      const second = new Promise<number | bigint>((resolve) => peer.once('data', () => resolve(groupCommit(db, insert('second')))));
      const before = commitCount(db);
      const first = groupCommit(db, insert('first'));
      client.write('x');
      expect(await Promise.all([first, second])).toEqual([1, 1]);
      expect(commitCount(db) - before).toBe(1);
      expect(rows(other)).toEqual(['first', 'second']);
    } finally {
      await close();
    }
  });

  it('undoes a unit that throws, alone: its writes and its settle hooks; the others commit once', async () => {
    const events: string[] = [];
    const ok = groupCommit(db, () => {
      db.prepare('INSERT INTO t (v) VALUES (?)').run('kept');
      onSettle(db, { commit: () => events.push('kept committed'), rollback: () => events.push('kept rolled back') });
    });
    const bad = groupCommit(db, () => {
      db.prepare('INSERT INTO t (v) VALUES (?)').run('undone');
      onSettle(db, { commit: () => events.push('undone committed'), rollback: () => events.push('undone rolled back') });
      throw new Error('refused');
    });
    const dup = groupCommit(db, () => db.prepare('INSERT INTO t (v) VALUES (?)').run('kept'));
    await expect(ok).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('refused');
    await expect(dup).rejects.toThrow(/UNIQUE/);
    expect(rows(other)).toEqual(['kept']);
    // the group ran straight through, was rolled back at the throw, then ran unit by unit:
    // every hook heard how its run ended, and only the kept unit's write was committed, once
    expect(events.filter((e) => e.endsWith('committed'))).toEqual(['kept committed']);
    expect(events.at(-1)).toBe('kept committed');
    expect(events).toContain('undone rolled back');
  });

  it('rejects every unit when the transaction cannot begin (another connection holds the write lock)', async () => {
    const busy = openDb(join(dir, 'g.db'));
    busy.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA busy_timeout = 0');
    busy.exec('BEGIN IMMEDIATE');
    try {
      const a = groupCommit(db, () => db.prepare('INSERT INTO t (v) VALUES (?)').run('x'));
      await expect(a).rejects.toThrow(/locked|busy/i);
    } finally {
      busy.exec('ROLLBACK');
      busy.close();
    }
    expect(rows(other)).toEqual([]);
  });
});
