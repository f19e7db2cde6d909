import { describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { pruneAttempts } from './attempts.js';

describe('pruning attempts', () => {
  const env = freshCoreEachTest('prune');

  /** Records attempts made at these times (unix ms), in this order. */
  const record = (times: number[]) => {
    const insert = env.core.db.prepare(`INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, event_name, uri, method, result, try, retries_left, created)
      VALUES (0, 'e', 'webhook', 'a', 'channel_create', 'http://x/', 'post', 'success', 1, 0, ?)`);
    env.core.db.exec('BEGIN');
    for (const t of times) insert.run(t);
    env.core.db.exec('COMMIT');
  };
  const createdLeft = () => (env.core.db.prepare('SELECT created FROM delivery_attempts ORDER BY id').all() as { created: number }[]).map((r) => r.created);

  it('removes every attempt older than the retention and none younger, also when some were recorded out of turn', () => {
    const now = 10_000_000;
    // a week of attempts, one a minute, then a few recorded late (made before others recorded earlier)
    const times = Array.from({ length: 7 * 1440 }, (_, i) => now - (7 * 1440 - i) * 60_000);
    times.splice(6000, 0, now - 6 * 86_400_000, now - 1000);
    record(times);
    const retention = 3 * 86_400;
    const removed = pruneAttempts(env.core, retention, now);
    const left = createdLeft();
    expect(left.every((t) => t >= now - retention * 1000 || t === now - 6 * 86_400_000)).toBe(true);
    expect(left.filter((t) => t >= now - retention * 1000)).toHaveLength(times.filter((t) => t >= now - retention * 1000).length);
    expect(removed).toBeGreaterThanOrEqual(times.filter((t) => t < now - retention * 1000).length - 1);
    // the one recorded out of turn goes at a later pass, once the attempts around it are old too
    pruneAttempts(env.core, retention, now + 86_400_000);
    expect(createdLeft().every((t) => t >= now + 86_400_000 - retention * 1000)).toBe(true);
  });

  it('leaves a log with nothing old enough alone, and an empty one', () => {
    expect(pruneAttempts(env.core, 60, 1_000_000)).toBe(0);
    record([1_000_000, 1_000_500]);
    expect(pruneAttempts(env.core, 60, 1_000_600)).toBe(0);
    expect(createdLeft()).toEqual([1_000_000, 1_000_500]);
  });
});
