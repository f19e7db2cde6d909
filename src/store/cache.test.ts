import { describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { MAX_CACHED_KEY_CHARS, RowCache } from './cache.js';

/** What a row cache holds: its number of rows and the characters of their keys. */
function held(cache: RowCache<unknown>): { rows: number; keyChars: number } {
  const c = cache as unknown as { rows: Map<string, unknown>; keyChars: number };
  return { rows: c.rows.size, keyChars: [...c.rows.keys()].reduce((n, k) => n + k.length, 0) };
}

describe('a row cache under guessed keys', () => {
  const db = new DatabaseSync(':memory:');
  const miss = () => undefined;

  it('keeps no key longer than any real one, found or not', () => {
    const cache = new RowCache<unknown>(db);
    for (let i = 0; i < 1_000; i++) cache.get(`${i}`.padEnd(MAX_CACHED_KEY_CHARS + 1, 'x'), miss);
    expect(held(cache)).toEqual({ rows: 0, keyChars: 0 });
    expect(cache.get('y'.repeat(MAX_CACHED_KEY_CHARS + 1), () => 'found')).toBe('found');
    expect(held(cache).rows).toBe(0);
  });

  it('holds at most its entry and key-size budgets of misses', () => {
    const cache = new RowCache<unknown>(db);
    let most = { rows: 0, keyChars: 0 };
    for (let i = 0; i < 30_000; i++) {
      cache.get(`${i}`.padEnd(MAX_CACHED_KEY_CHARS, 'k'), miss);
      if (i % 97 !== 0) continue;
      const now = held(cache);
      most = { rows: Math.max(most.rows, now.rows), keyChars: Math.max(most.keyChars, now.keyChars) };
    }
    expect(most.rows).toBeLessThanOrEqual(10_000);
    expect(most.keyChars).toBeLessThanOrEqual(2_000_000);
    const short = new RowCache<unknown>(db);
    for (let i = 0; i < 25_000; i++) short.get(`t${i}`, miss);
    expect(held(short).rows).toBeLessThanOrEqual(10_000);
  });

  it('still answers hits and misses from the cache', () => {
    const cache = new RowCache<string>(db);
    let loads = 0;
    const load = () => (loads++, 'row');
    cache.get('a', load);
    cache.get('a', load);
    cache.get('nothing', () => (loads++, undefined));
    cache.get('nothing', () => (loads++, undefined));
    expect(loads).toBe(2);
  });

  it('reads again a row it was told to forget, though it was the last asked for', () => {
    const cache = new RowCache<string>(db);
    let version = 1;
    const load = () => `row ${version}`;
    // the key as clients send it: a new string each time, equal to the last one
    const key = () => ['tok', 'en'].join('');
    expect(cache.get(key(), load)).toBe('row 1');
    expect(cache.get(key(), load)).toBe('row 1');
    version = 2;
    cache.clear(key());
    expect(cache.get(key(), load)).toBe('row 2');
    version = 3;
    cache.clear();
    expect(cache.get(key(), load)).toBe('row 3');
  });
});

describe('a row cache beside another connection', () => {
  it("empties itself once another connection has committed (seen within a millisecond)", async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'tel-cache-'));
    const file = join(dir, 'c.db');
    const mine = new DatabaseSync(file);
    const other = new DatabaseSync(file);
    try {
      mine.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES (\'a\', \'one\')');
      const cache = new RowCache<string>(mine);
      const read = () => cache.get('a', () => (mine.prepare('SELECT v FROM t WHERE k = ?').get('a') as { v: string }).v);
      expect(read()).toBe('one');
      other.prepare("UPDATE t SET v = 'two' WHERE k = 'a'").run();
      await new Promise((r) => setTimeout(r, 5));
      expect(read()).toBe('two');
    } finally {
      mine.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
