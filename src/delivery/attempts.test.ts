import { describe, expect, it } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { attemptJson, findAttempt, listAttempts, pruneAttempts, responsesShownTo, type AttemptRow } from './attempts.js';
import { unixMsToGregorian } from '../util/time.js';

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
    // the pass looks no further than the last attempt made before the cutoff (ids grow with time)
    expect(left).toContain(now - 6 * 86_400_000);
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

describe('an attempt as the API shows it', () => {
  const row = (over: Partial<AttemptRow> = {}): AttemptRow => ({
    id: 7, delivery_id: 3, event_id: 'ev-1', kind: 'webhook', account_id: 'acc', source_id: 'hook-1', source_name: 'Desk hook',
    event_name: 'channel_create', uri: 'http://203.0.113.5/in', method: 'post', result: 'success', reason: null, client_error: null,
    http_status: 200, latency_ms: 12, try: 1, retries_left: 2, req_headers: '{"content-type":"application/json"}', req_body: '{"a":1}',
    resp_headers: '{"server":"x"}', resp_body: 'ok', peer_public: 1, created: 1_700_000_000_000, ...over,
  });

  it("a success carries the request, the answer and its status, and none of a failure's fields", () => {
    expect(attemptJson(row())).toEqual({
      id: 7, hook_id: 'hook-1', hook_name: 'Desk hook', hook_event: 'channel_create', event_id: 'ev-1', result: 'success',
      timestamp: unixMsToGregorian(1_700_000_000_000), uri: 'http://203.0.113.5/in', method: 'post', try: 1,
      resp_status_code: '200', latency_ms: 12, req_headers: { 'content-type': 'application/json' }, req_body: '{"a":1}',
      resp_headers: { server: 'x' }, resp_body: 'ok',
    });
  });

  it('a failure says why and how many retries are left; a try that got no answer has no status, headers or body', () => {
    const failed = row({ result: 'failure', reason: 'timeout', client_error: 'ETIMEDOUT', http_status: null, resp_headers: null, resp_body: null, req_headers: null, req_body: null, retries_left: 1 });
    const out = attemptJson(failed);
    expect(out).toMatchObject({ result: 'failure', reason: 'timeout', client_error: 'ETIMEDOUT', 'retries left': 1, retries_left: 1, req_headers: {}, req_body: '' });
    for (const absent of ['resp_status_code', 'resp_headers', 'resp_body']) expect(out).not.toHaveProperty(absent);
    expect(attemptJson({ ...failed, reason: null, client_error: null })).not.toHaveProperty('reason');
    expect(attemptJson({ ...failed, reason: null, client_error: null })).not.toHaveProperty('client_error');
    expect(attemptJson(row({ latency_ms: null }))).not.toHaveProperty('latency_ms');
  });

  it("an endpoint's answer is shown to a super-duper admin, to an admin when the endpoint was public, to nobody else", () => {
    expect([responsesShownTo({ admin: true, superduper: true }), responsesShownTo({ admin: true, superduper: false }), responsesShownTo({ admin: false, superduper: false })])
      .toEqual(['all', 'public', 'none']);
    const answer = (r: AttemptRow, shown: 'all' | 'public' | 'none') => {
      const out = attemptJson(r, shown);
      return [out.resp_headers, out.resp_body];
    };
    expect(answer(row(), 'public')).toEqual([{ server: 'x' }, 'ok']);
    expect(answer(row({ peer_public: 0 }), 'public')).toEqual([undefined, undefined]);
    expect(answer(row({ peer_public: null }), 'public')).toEqual([undefined, undefined]);
    expect(answer(row({ peer_public: 0 }), 'all')).toEqual([{ server: 'x' }, 'ok']);
    expect(answer(row(), 'none')).toEqual([undefined, undefined]);
    expect(attemptJson(row({ resp_body: '' }))).toHaveProperty('resp_body', '');
  });
});

describe('listing attempts', () => {
  const env = freshCoreEachTest('list-attempts');

  /** Records an attempt of `kind`, account and source, made at `created`; answers its id. */
  const record = (kind: string, account: string, source: string | null, created: number) =>
    Number(
      env.core.db
        .prepare(`INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, source_id, event_name, uri, method, result, try, retries_left, created)
          VALUES (0, 'e', ?, ?, ?, 'channel_create', 'http://x/', 'post', 'success', 1, 0, ?)`)
        .run(kind, account, source, created).lastInsertRowid,
    );
  const ids = (q: Parameters<typeof listAttempts>[1]) => listAttempts(env.core, q).items.map((r) => r.id);

  it("an account's, or one hook's, newest first, within the window asked for, a page at a time", () => {
    const a1 = record('webhook', 'acc', 'h1', 1000);
    const a2 = record('webhook', 'acc', 'h2', 2000);
    const a3 = record('webhook', 'acc', 'h1', 3000);
    record('webhook', 'other', 'h1', 2500);
    record('queue', 'acc', 'h1', 2600);
    expect(ids({ kind: 'webhook', accountId: 'acc' })).toEqual([a3, a2, a1]);
    expect(ids({ kind: 'webhook', accountId: 'acc', sourceId: 'h1' })).toEqual([a3, a1]);
    expect(ids({ kind: 'webhook', accountId: 'acc', createdFrom: 2000 })).toEqual([a3, a2]);
    expect(ids({ kind: 'webhook', accountId: 'acc', createdTo: 2000 })).toEqual([a2, a1]);
    expect(ids({ kind: 'webhook', accountId: 'acc', createdFrom: 1500, createdTo: 2500 })).toEqual([a2]);
    const first = listAttempts(env.core, { kind: 'webhook', accountId: 'acc', pageSize: 2 });
    expect(first.items.map((r) => r.id)).toEqual([a3, a2]);
    expect(first.nextStartKey).toEqual([1000, a1]);
    expect(ids({ kind: 'webhook', accountId: 'acc', pageSize: 2, startKey: first.nextStartKey })).toEqual([a1]);
    // a page's key is its window's end too, the tighter of the two
    expect(ids({ kind: 'webhook', accountId: 'acc', startKey: [2000, a2], createdTo: 2500 })).toEqual([a2, a1]);
    expect(ids({ kind: 'webhook', accountId: 'acc', startKey: [3000, a3], createdTo: 1500 })).toEqual([a1]);
    expect(findAttempt(env.core, a2)).toMatchObject({ id: a2, source_id: 'h2', created: 2000 });
    expect(findAttempt(env.core, 999)).toBeUndefined();
  });
});
