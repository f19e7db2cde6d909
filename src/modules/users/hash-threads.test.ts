import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test/helpers/tel-process.js';
import { hashThreadsRunning, keepIdleHashThreadsFor, LONE_HASH_MS, scryptOffLoop } from './hash-threads.js';

describe('password hashes off the event loop', () => {
  it("are scrypt's, computed while the event loop keeps turning", async () => {
    const options = { N: 2 ** 14, r: 8, p: 1 };
    let turns = 0;
    let turning = true;
    const spin = () => {
      turns++;
      if (turning) setImmediate(spin);
    };
    setImmediate(spin);
    const hashes = await Promise.all(['a', 'b', 'c'].map((form) => scryptOffLoop(form, Buffer.from('salt'), 32, options)));
    turning = false;
    expect(hashes.map((h) => h.toString('hex'))).toEqual(['a', 'b', 'c'].map((form) => scryptSync(form, Buffer.from('salt'), 32, options).toString('hex')));
    // three 16 MiB hashes take tens of milliseconds: computed here, the loop would not have turned
    expect(turns).toBeGreaterThan(3);
  });
});

describe('hash threads: started for a stream of hashes, ended once idle', () => {
  it('a lone hash starts no thread; one close behind it does, and that thread ends once idle', async () => {
    const previous = keepIdleHashThreadsFor(300);
    try {
      const options = { N: 2 ** 10, r: 8, p: 1 };
      await until(() => hashThreadsRunning() === 0, 'earlier threads to end');
      await new Promise((r) => setTimeout(r, LONE_HASH_MS));
      const first = await scryptOffLoop('a', Buffer.from('salt'), 32, options);
      expect(first).toEqual(scryptSync('a', Buffer.from('salt'), 32, options));
      // computed on libuv's threadpool: no thread (and its 20 MB) for one login
      expect(hashThreadsRunning()).toBe(0);
      const second = await scryptOffLoop('b', Buffer.from('salt'), 32, options);
      expect(second).toEqual(scryptSync('b', Buffer.from('salt'), 32, options));
      expect(hashThreadsRunning()).toBe(1);
      await until(() => hashThreadsRunning() === 0, 'the idle thread to end');
      const again = await scryptOffLoop('c', Buffer.from('salt'), 32, options);
      expect(again).toEqual(scryptSync('c', Buffer.from('salt'), 32, options));
      expect(hashThreadsRunning()).toBe(1);
    } finally {
      keepIdleHashThreadsFor(previous);
    }
  });
});
