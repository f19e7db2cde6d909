import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Page, PageQuery } from '../../store/pages.js';
import { numbersReply } from './module.js';
import type { NumberRow } from './service.js';

/** An inventory of `n` numbers, read as the store reads it (keyset pages in number order). */
function inventory(n: number) {
  const rows: NumberRow[] = Array.from({ length: n }, (_, i) => ({
    number: `+1415${String(5_000_000 + i)}`,
    account_id: 'a'.repeat(32),
    resource_id: null,
    state: 'in_service',
    job_id: null,
    created: 1_700_000_000_000,
    modified: 1_700_000_000_000,
  }));
  const sizes: number[] = [];
  const read = (q: PageQuery<string>): Page<NumberRow, string> => {
    const from = q.startKey === undefined ? 0 : rows.findIndex((r) => r.number === q.startKey);
    const items = rows.slice(from, from + (q.pageSize ?? rows.length));
    sizes.push(items.length);
    const next = rows[from + items.length];
    return { items, nextStartKey: next?.number };
  };
  return { rows, read, sizes };
}

/** The pieces of a whole inventory's answer (`paginate=false`). */
function pieces(read: (q: PageQuery<string>) => Page<NumberRow, string>): string[] {
  const reply = numbersReply(new URLSearchParams('paginate=false'), read);
  if (reply instanceof Promise || !reply.stream) throw new Error('a whole inventory is answered as a stream');
  return [...(reply.stream.pieces as Iterable<string>)];
}

describe('a whole inventory (paginate=false) is written in pieces, one a turn of the event loop', () => {
  afterEach(() => vi.restoreAllMocks());

  it('holds every number once, in order, whatever the pieces', () => {
    const { rows, read, sizes } = inventory(2_500);
    const all = pieces(read);
    const answer = JSON.parse(all.join('')) as { cascade_quantity: number; numbers: Record<string, { state: string }> };
    expect(answer.cascade_quantity).toBe(0);
    expect(Object.keys(answer.numbers)).toEqual(rows.map((r) => r.number));
    expect(answer.numbers[rows[0].number].state).toBe('in_service');
    // the read made with the request is a short one; the ones after it take 1,000
    expect(sizes).toEqual([100, 1000, 1000, 400]);
  });

  it('hands a piece on once it has taken 8 ms, in the middle of a read if need be (rows written before V8 optimises them are slow)', () => {
    // a clock at which every look finds 3 ms gone: a piece is cut at the third look (every 50 numbers)
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (now += 3));
    const { rows, read } = inventory(1_100);
    const all = pieces(read);
    const counts = all.map((piece) => (piece.match(/"\+1415/g) ?? []).length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(rows.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(150);
    expect(Object.keys((JSON.parse(all.join('')) as { numbers: object }).numbers)).toHaveLength(rows.length);
  });
});
