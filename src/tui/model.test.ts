import { describe, expect, test } from 'vitest';
import { attemptMatches, jobMatches, parseFilter, requestMatches, unknownFields, ATTEMPT_FIELDS } from './filter.js';
import { attemptLine, compact, fit, jobColumns, jobLine, progressBar, requestColumns, requestLine, tableLine } from './format.js';
import { AttemptLog, JobBook, RequestLog } from './model.js';
import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';
import { initialViewState, reduce, windowStart, type ListContext } from './view-state.js';

function attempt(id: number, over: Partial<WatchedAttempt> = {}): WatchedAttempt {
  return {
    id,
    at: 1_700_000_000_000 + id * 1000,
    accountId: 'a1',
    accountName: 'Lab',
    hookId: 'h1',
    hookName: 'CRM hook',
    event: 'channel_create',
    result: 'success',
    httpStatus: 200,
    latencyMs: 5,
    retriesLeft: null,
    error: null,
    ...over,
  };
}

function request(id: number, over: Partial<WatchedRequest> = {}): WatchedRequest {
  return {
    id,
    at: 1_700_000_000_000 + id * 1000,
    listener: '127.0.0.1:9000',
    method: 'POST',
    path: '/crm',
    status: 200,
    latencyMs: 3,
    verdict: 'valid',
    accountId: 'a1',
    accountName: 'Lab',
    hookId: 'h1',
    hookName: 'CRM hook',
    eventId: 'e1',
    ...over,
  };
}

function job(seq: number, over: Partial<WatchedJob> = {}): WatchedJob {
  return {
    seq,
    id: `202501-${seq}`,
    accountId: 'a1',
    accountName: 'Lab',
    resourceId: 'r1',
    resourceName: 'Carrier',
    status: 'running',
    total: 10,
    successes: 1,
    failures: 0,
    createdAt: seq,
    modifiedAt: seq,
    ...over,
  };
}

describe('AttemptLog', () => {
  test('keeps history and followed rows newest first, and finds rows by id', () => {
    const log = new AttemptLog();
    log.addOlder([attempt(5), attempt(4), attempt(2)]);
    log.addNewer([attempt(6), attempt(8)]);
    log.addOlder([attempt(1)]);
    expect([0, 1, 2, 3, 4, 5].map((i) => log.at(i)?.id)).toEqual([8, 6, 5, 4, 2, 1]);
    expect(log.positionOf(4)).toBe(3);
    expect(log.positionOf(3)).toBe(4); // gone: the nearest older row
    expect(log.newestId).toBe(8);
    expect(log.oldestId).toBe(1);
  });

  test('the filter applies to loaded rows and to rows arriving later; totals ignore it', () => {
    const log = new AttemptLog();
    log.addOlder([attempt(2, { result: 'failure' }), attempt(1)]);
    log.setFilter((r) => r.result === 'failure');
    log.addNewer([attempt(3), attempt(4, { result: 'failure' })]);
    expect(log.length).toBe(2);
    expect(log.at(0)?.id).toBe(4);
    expect(log.totals).toEqual({ total: 4, successes: 2, failures: 2 });
  });

  test('counts attempts of the last minute by binary search', () => {
    const log = new AttemptLog();
    log.addNewer(Array.from({ length: 100 }, (_, i) => attempt(i + 1)));
    expect(log.countSince(attempt(91).at)).toBe(10);
  });
});

describe('JobBook', () => {
  test('reports new and changed jobs only, and keeps unfinished ones to read again', () => {
    const book = new JobBook();
    expect(book.upsert([job(1), job(2, { status: 'complete' })]).map((j) => j.seq)).toEqual([1, 2]);
    expect(book.upsert([job(1)])).toEqual([]);
    expect(book.unfinished).toEqual([1]);
    expect(book.upsert([job(1, { status: 'complete', successes: 10 })])).toHaveLength(1);
    expect(book.unfinished).toEqual([]);
    expect(book.newestSeq).toBe(2);
    expect(book.at(0)?.seq).toBe(2);
  });
});

describe('filters', () => {
  test('words AND together; field words look at one field; status patterns', () => {
    const fail = attempt(1, { result: 'failure', httpStatus: 503, error: 'bad response code' });
    expect(attemptMatches(fail, parseFilter('result:fail status:5xx'), false)).toBe(true);
    expect(attemptMatches(fail, parseFilter('status:4xx'), false)).toBe(false);
    expect(attemptMatches(fail, parseFilter('crm 503'), false)).toBe(true);
    expect(attemptMatches(fail, parseFilter('account:other'), false)).toBe(false);
    expect(attemptMatches(attempt(2), parseFilter(''), true)).toBe(false);
    expect(unknownFields(parseFilter('colour:red hook:x'), ATTEMPT_FIELDS)).toEqual(['colour']);
    expect(jobMatches(job(1, { failures: 2 }), parseFilter('resource:carrier'), true)).toBe(true);
    expect(jobMatches(job(1), [], true)).toBe(false);
  });
});

describe('view state', () => {
  const ctx = (over: Partial<ListContext> = {}): ListContext => ({
    length: 100,
    height: 10,
    index: 0,
    idAt: (i) => 100 - i,
    detailLines: 0,
    ...over,
  });

  test('moving down walks the screen, then scrolls; the selection is kept by id', () => {
    let s = initialViewState();
    s = reduce(s, { type: 'move', delta: 3 }, ctx());
    expect(s.panes.attempts).toMatchObject({ selected: 97, line: 3 });
    s = reduce(s, { type: 'move', delta: 20 }, ctx({ index: 3 }));
    expect(s.panes.attempts).toMatchObject({ selected: 77, line: 9 });
    expect(windowStart(23, 9, 100, 10)).toBe(14);
    s = reduce(s, { type: 'top' }, ctx({ index: 23 }));
    expect(s.panes.attempts.selected).toBeNull();
  });

  test('the window never runs past either end of the list', () => {
    expect(windowStart(2, 5, 100, 10)).toBe(0);
    expect(windowStart(99, 0, 100, 10)).toBe(90);
    expect(windowStart(0, 0, 3, 10)).toBe(0);
  });

  test('a filter is typed, applied and cleared; panes keep their own', () => {
    let s = reduce(initialViewState(), { type: 'filterStart' }, ctx());
    s = reduce(s, { type: 'filterType', text: 'hook:crx' }, ctx());
    s = reduce(s, { type: 'filterBackspace' }, ctx());
    s = reduce(s, { type: 'filterType', text: 'm' }, ctx());
    s = reduce(s, { type: 'filterApply' }, ctx());
    expect(s.mode).toBe('list');
    expect(s.panes.attempts.filter).toBe('hook:crm');
    s = reduce(s, { type: 'nextPane' }, ctx());
    expect(s.panes.jobs.filter).toBe('');
    s = reduce(s, { type: 'pane', pane: 'attempts' }, ctx());
    s = reduce(s, { type: 'clearFilters' }, ctx());
    expect(s.panes.attempts.filter).toBe('');
  });

  test('Tab visits the three panes in turn', () => {
    const visited: string[] = [];
    let s = initialViewState();
    for (let i = 0; i < 4; i++) {
      s = reduce(s, { type: 'nextPane' }, ctx());
      visited.push(s.pane);
    }
    expect(visited).toEqual(['jobs', 'received', 'attempts', 'jobs']);
  });
});

describe('received requests', () => {
  test('totals count verdicts; a filter narrows by verdict, status, path and method; f keeps what went wrong', () => {
    const log = new RequestLog();
    log.addNewer([
      request(1),
      request(2, { verdict: 'invalid', path: '/crm/orders' }),
      request(3, { verdict: 'unsigned', status: 503 }),
      request(4, { verdict: 'unknown hook', hookId: null, hookName: '' }),
      request(5, { status: null, latencyMs: null, method: 'PUT' }),
    ]);
    expect(log.totals).toEqual({ total: 5, valid: 2, bad: 2 });
    const shown = (filter: string, failuresOnly = false) => {
      log.setFilter((r) => requestMatches(r, parseFilter(filter), failuresOnly));
      return Array.from({ length: log.length }, (_, i) => log.at(i)!.id);
    };
    expect(shown('verdict:unknown_hook')).toEqual([4]);
    expect(shown('status:5xx')).toEqual([3]);
    expect(shown('status:none')).toEqual([5]);
    expect(shown('path:orders')).toEqual([2]);
    expect(shown('method:put')).toEqual([5]);
    expect(shown('', true)).toEqual([5, 4, 3, 2]);
    expect(shown('invalid')).toEqual([2]);
  });

  test('a received line fits an 80-column terminal and never says failure', () => {
    expect(tableLine(requestColumns(78), request(1, { path: '/a/very/long/path/that/goes/on/and/on' }), 0).length).toBeLessThanOrEqual(78);
    const line = requestLine(request(7, { status: 500, verdict: 'invalid' }));
    expect(line).toMatch(/ received POST \/crm status=500 latency_ms=3 verdict=invalid account=Lab hook="CRM hook" event=e1 id=7$/);
    expect(line).not.toMatch(/failure/);
  });
});

describe('formatting', () => {
  test('cells are cut with an ellipsis and padded', () => {
    expect(fit('channel_destroy', 8)).toBe('channel…');
    expect(fit('200', 5, 'right')).toBe('  200');
    expect(progressBar(5, 10, 12)).toBe('[#####-----]');
    expect([compact(9999), compact(103_456), compact(1_250_000)]).toEqual(['9999', '103k', '1.2M']);
  });

  test('a job line fits an 80-column terminal, large counts shortened', () => {
    const line = tableLine(jobColumns(78), job(1, { total: 600_000, successes: 103_000 }), 0);
    expect(line.length).toBeLessThanOrEqual(78);
    expect(line).toMatch(/103k\/600k\s+103000\s+0/);
  });

  test('stream lines: grep failure finds failed attempts, not job lines', () => {
    expect(attemptLine(attempt(1, { result: 'failure', httpStatus: 500, error: 'bad response code' }))).toMatch(
      /attempt failure status=500 .*hook="CRM hook".*error="bad response code"/,
    );
    expect(jobLine(job(1, { failures: 0 }))).not.toMatch(/failure/);
  });
});
