import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressBar, progressLine, ProgressReporter, REPLACE_LINE } from './progress.js';
import type { JobRow } from './store.js';

/** A job row as a watcher reads it: `processed` of `total` done, every error counted in `failures`. */
function job(status: JobRow['status'], processed: number, total = 1000, failures = 0): JobRow {
  return {
    seq: 1,
    id: '202612-abc',
    account_id: 'a',
    auth_account_id: null,
    resource_id: 'r',
    name: null,
    status,
    total,
    processed,
    successes: processed - failures,
    failures,
    runner: null,
    recoveries: 0,
    error: null,
    created: 0,
    started: null,
    modified: 0,
  };
}

describe('a line and a bar of progress', () => {
  it('the plain line: counts and the share done, rounded down', () => {
    expect(progressLine(job('running', 456, 1000, 6))).toBe('job 202612-abc: running 456/1,000 (45%), 450 added, 6 errors');
    expect(progressLine(job('running', 1500, 1000))).toMatch(/\(100%\)/);
  });

  it('a job of no numbers is all done (100%), not NaN', () => {
    expect(progressLine(job('complete', 0, 0))).toBe('job 202612-abc: complete 0/0 (100%), 0 added, 0 errors');
    expect(progressBar(job('complete', 0, 0), undefined, 10)).toBe('[##########] 100%  0/0  added 0  errors 0  complete');
  });

  it('the bar: # for the share done, . for the rest, then the rate when one is known', () => {
    expect(progressBar(job('running', 450, 1000, 10), 12_345.6, 20)).toBe('[#########...........]  45%  450/1,000  added 440  errors 10  running  12,346/s');
    expect(progressBar(job('running', 0, 1000), undefined, 4)).toBe('[....]   0%  0/1,000  added 0  errors 0  running');
  });

  it('no rate is shown when there is none yet (zero, unknown or infinite)', () => {
    for (const rate of [undefined, 0, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(progressBar(job('running', 500), rate, 2), String(rate)).toBe('[#.]  50%  500/1,000  added 500  errors 0  running');
    }
  });
});

describe('progress on a terminal: one bar redrawn in place', () => {
  let now = 0;
  beforeEach(() => {
    now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => vi.restoreAllMocks());

  it('a notice before the first bar is a plain line; after it, it goes above the bar, which is drawn again', () => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), true);
    r.note('Executing the job here.');
    r.update(job('pending', 0));
    expect(out).toEqual(['Executing the job here.', `[${'.'.repeat(30)}]   0%  0/1,000  added 0  errors 0  pending`]);
    r.note('Interrupted.');
    expect(out.slice(2)).toEqual([`${REPLACE_LINE}Interrupted.`, out[1]]);
  });

  it('at most one frame each frameMs, the same snapshot never twice; a final frame is drawn at once', () => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), true, 100);
    r.update(job('running', 0));
    now += 50;
    r.update(job('running', 100)); // too soon
    now += 50;
    r.update(job('running', 200)); // a frame later: drawn
    now += 10;
    r.update(job('complete', 1000), true); // too soon, but the last
    now += 500;
    r.update(job('complete', 1000), true); // nothing new
    expect(out.map((l) => l.replace(/\x1b\[1A\x1b\[2K/, '^ ').replace(/\[[#.]+\]/, '[]'))).toEqual([
      '[]   0%  0/1,000  added 0  errors 0  running',
      '^ []  20%  200/1,000  added 200  errors 0  running  2,000/s',
      '^ [] 100%  1,000/1,000  added 1,000  errors 0  complete  9,091/s',
    ]);
  });

  it('an update without final waits for the next frame', () => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), true, 100);
    r.update(job('running', 0));
    now += 99;
    r.update(job('running', 100));
    expect(out).toHaveLength(1);
  });

  it('the rate counts from the first snapshot of the job running, not from while it waited', () => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), true, 100);
    r.update(job('pending', 0));
    now += 1000;
    r.update(job('running', 100)); // running seen first: no rate yet
    now += 1000;
    r.update(job('running', 600));
    now += 2000;
    r.update(job('running', 800));
    expect(out.map((l) => / {2}([\d,]+)\/s$/.exec(l)?.[1])).toEqual([undefined, undefined, '500', '233']);
  });
});

describe('progress in a log or a pipe: a plain line at each tenth and each status change', () => {
  const lines = (updates: [JobRow, boolean?][]) => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), false);
    for (const [j, final] of updates) r.update(j, final);
    return out.map((l) => l.replace(/^job 202612-abc: /, '').replace(/, .*$/, ''));
  };

  it('one line per tenth of the way and per status, the last one once', () => {
    expect(
      lines([
        [job('pending', 0)],
        [job('running', 0)],
        [job('running', 50)],
        [job('running', 99)],
        [job('running', 100)],
        [job('running', 150)],
        [job('running', 1000)],
        [job('complete', 1000), true],
        [job('complete', 1000), true],
      ]),
    ).toEqual(['pending 0/1,000 (0%)', 'running 0/1,000 (0%)', 'running 100/1,000 (10%)', 'running 1,000/1,000 (100%)', 'complete 1,000/1,000 (100%)']);
  });

  it('a final snapshot further along is printed even within the same status', () => {
    expect(lines([[job('running', 500)], [job('running', 1000), true]])).toEqual(['running 500/1,000 (50%)', 'running 1,000/1,000 (100%)']);
  });

  it('an update without final, as a repeated one, prints nothing new', () => {
    const out: string[] = [];
    const r = new ProgressReporter((l) => out.push(l), false);
    r.update(job('running', 500));
    r.update(job('running', 510));
    expect(out).toHaveLength(1);
  });
});
