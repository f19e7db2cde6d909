import { describe, expect, it, vi } from 'vitest';
import { freshCoreEachTest } from '../../test/helpers/core.js';
import { transaction } from '../store/db.js';
import {
  attachClaimer,
  deliveriesMade,
  enqueueDelivery,
  findDelivery,
  onEnqueue,
  outboxBacklog,
  sendingSource,
  targetOf,
  type DeliveryInput,
  type DeliveryRow,
  type InlineClaimer,
} from './outbox.js';

describe('queueing a delivery in the outbox', () => {
  const env = freshCoreEachTest('outbox');

  const base: DeliveryInput = { kind: 'lab', accountId: 'a1', eventName: 'e', url: 'http://192.0.2.1/in', method: 'post', payload: { a: 1 } };
  const enqueue = (over: Partial<DeliveryInput> = {}) => enqueueDelivery(env.core, { ...base, ...over } as DeliveryInput);

  it('a bare delivery: pending, due now, JSON, no retries, no headers, its own new event id, a target without a source', () => {
    const before = Date.now();
    const id = enqueue();
    const row = findDelivery(env.core, id)!;
    expect(row).toMatchObject({
      id, kind: 'lab', account_id: 'a1', source_id: null, source_name: null, event_name: 'e', url: 'http://192.0.2.1/in',
      target: 'http://192.0.2.1/in', method: 'post', format: 'json', payload: '{"a":1}', headers: '{}', secret: null,
      previous_secret: null, previous_secret_until: null, rate_per_s: null, retries: 0, tries: 0, status: 'pending', owner: null, lease_until: null,
    });
    expect(row.due_at).toBeGreaterThanOrEqual(before);
    expect(row.due_at).toBeLessThanOrEqual(Date.now());
    expect([row.created, row.modified]).toEqual([row.due_at, row.due_at]);
    expect(row.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(findDelivery(env.core, enqueue())!.event_id).not.toBe(row.event_id);
    expect(findDelivery(env.core, 999_999)).toBeUndefined();
  });

  it('what the caller gives is kept: texts it made already, secrets, pace, event id, due time; retries whole and never negative', () => {
    const id = enqueue({
      payload: undefined, payloadJson: '{"b":2}', headers: { 'X-A': '1' }, headersJson: '{"X-B":"2"}', sourceId: 'h1', sourceName: 'Desk',
      format: 'form-data', method: 'put', retries: 2.7, secret: 's1', previousSecret: { secret: 's0', until: 5 }, ratePerS: 0.5,
      eventId: 'ev-9', dueAt: 1234, url: 'http://192.0.2.1:8080/in/x?q=1#f',
    });
    expect(findDelivery(env.core, id)).toMatchObject({
      payload: '{"b":2}', headers: '{"X-B":"2"}', source_id: 'h1', source_name: 'Desk', format: 'form-data', method: 'put', retries: 2,
      secret: 's1', previous_secret: 's0', previous_secret_until: 5, rate_per_s: 0.5, event_id: 'ev-9', due_at: 1234,
      target: 'http://192.0.2.1:8080/in/x h1',
    });
    expect(findDelivery(env.core, enqueue({ headers: { 'X-A': '1' } }))!.headers).toBe('{"X-A":"1"}');
    expect(findDelivery(env.core, enqueue({ retries: -3 }))!.retries).toBe(0);
  });

  it("a target is the endpoint without query or fragment, and its source: one source's URLs share it, another source's do not", () => {
    expect(targetOf('http://192.0.2.1/in?x=1#y', 'h1')).toBe('http://192.0.2.1/in h1');
    expect(targetOf('http://192.0.2.1/in?x=2', 'h1')).toBe('http://192.0.2.1/in h1');
    expect(targetOf('http://192.0.2.1/in', 'h2')).toBe('http://192.0.2.1/in h2');
    expect(targetOf('HTTP://Example.COM:80/in', null)).toBe('http://example.com/in');
    expect(targetOf('http://192.0.2.1/in', '')).toBe('http://192.0.2.1/in');
  });

  it("a sender of this process is woken when a delivery commits, not before, not when it rolls back, and no more once it has left", () => {
    let woken = 0;
    const leave = onEnqueue(env.core, () => woken++);
    transaction(env.core.db, () => {
      enqueue();
      expect(woken).toBe(0);
    });
    expect(woken).toBe(1);
    expect(() =>
      transaction(env.core.db, () => {
        enqueue();
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(woken).toBe(1);
    expect(outboxBacklog(env.core)).toEqual({ pending: 1, sending: 0 });
    leave();
    enqueue();
    expect(woken).toBe(1);
  });

  it('a claimer with room takes a due row as it commits, already sending; a rolled-back one is given back; a later one waits on disk', () => {
    const events: string[] = [];
    let room = true;
    const claimer: InlineClaimer = {
      reserve: (target) => {
        events.push(`reserve ${target}`);
        return room ? { owner: 'me/1', leaseUntil: 42 } : undefined;
      },
      accept: (row: DeliveryRow) => events.push(`accept ${row.id} ${row.status} ${row.owner}`),
      release: (target) => events.push(`release ${target}`),
    };
    let woken = 0;
    onEnqueue(env.core, () => woken++);
    const detach = attachClaimer(env.core, claimer);
    const taken = enqueue({ sourceId: 'h1' });
    expect(events).toEqual([`reserve http://192.0.2.1/in h1`, `accept ${taken} sending me/1`]);
    expect(findDelivery(env.core, taken)).toMatchObject({ status: 'sending', owner: 'me/1', lease_until: 42 });
    expect(sendingSource(env.core, findDelivery(env.core, taken)!.event_id)).toBe('h1');
    events.length = 0;
    expect(() =>
      transaction(env.core.db, () => {
        enqueue();
        throw new Error('undone');
      }),
    ).toThrow();
    expect(events).toEqual(['reserve http://192.0.2.1/in', 'release http://192.0.2.1/in']);
    events.length = 0;
    expect(woken).toBe(0);
    // not due yet: the claimer is not asked, the senders are woken (to wait for it)
    const later = enqueue({ dueAt: Date.now() + 60_000 });
    expect(events).toEqual([]);
    expect(findDelivery(env.core, later)).toMatchObject({ status: 'pending', owner: null });
    expect(woken).toBe(1);
    // no room: the row waits, pending; the claimer knows, no sender is woken
    room = false;
    const waiting = enqueue();
    expect(findDelivery(env.core, waiting)!.status).toBe('pending');
    expect(woken).toBe(1);
    expect(outboxBacklog(env.core)).toEqual({ pending: 2, sending: 1 });
    // another claimer attached meanwhile is not detached by the first one's detach
    const other: InlineClaimer = { reserve: () => undefined, accept: () => {}, release: () => {} };
    attachClaimer(env.core, other);
    detach();
    events.length = 0;
    enqueue();
    expect(events).toEqual([]);
    expect(woken).toBe(1);
  });

  it("the source of a delivery being sent, by its event id; none for a row that waits or is done", () => {
    const id = enqueue({ sourceId: 'h7', eventId: 'ev-s' });
    expect(sendingSource(env.core, 'ev-s')).toBeUndefined();
    env.core.db.prepare("UPDATE outbox SET status = 'sending' WHERE id = ?").run(id);
    expect(sendingSource(env.core, 'ev-s')).toBe('h7');
    enqueue({ eventId: 'ev-n' });
    env.core.db.prepare("UPDATE outbox SET status = 'sending' WHERE event_id = 'ev-n'").run();
    expect(sendingSource(env.core, 'ev-n')).toBeUndefined();
    expect(sendingSource(env.core, 'ev-none')).toBeUndefined();
  });

  it("the deliveries made in a window, of one kind and account, maybe one source, oldest first", () => {
    const at = (id: number, created: number) => env.core.db.prepare('UPDATE outbox SET created = ? WHERE id = ?').run(created, id);
    const a = enqueue({ sourceId: 'h1', eventId: 'e-a' });
    const b = enqueue({ sourceId: 'h2', eventId: 'e-b' });
    const c = enqueue({ sourceId: 'h1', eventId: 'e-c' });
    const early = enqueue({ sourceId: 'h1' });
    const otherKind = enqueue({ sourceId: 'h1', kind: 'queue' });
    const otherAccount = enqueue({ sourceId: 'h1', accountId: 'a2' });
    for (const id of [a, b, otherKind, otherAccount]) at(id, 1000);
    at(c, 2000);
    at(early, 999);
    expect(deliveriesMade(env.core, { kind: 'lab', accountId: 'a1', createdFrom: 1000, createdTo: 2000 })).toEqual([
      { id: a, event_id: 'e-a', source_id: 'h1', status: 'pending' },
      { id: b, event_id: 'e-b', source_id: 'h2', status: 'pending' },
      { id: c, event_id: 'e-c', source_id: 'h1', status: 'pending' },
    ]);
    expect(deliveriesMade(env.core, { kind: 'lab', accountId: 'a1', sourceId: 'h1', createdFrom: 1000, createdTo: 1999 }).map((d) => d.id)).toEqual([a]);
    // up to now by default
    expect(deliveriesMade(env.core, { kind: 'lab', accountId: 'a1', sourceId: 'h2', createdFrom: 0 }).map((d) => d.id)).toEqual([b]);
  });

  it('a delivery queued where no sender listens commits quietly: nothing on stderr', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      transaction(env.core.db, () => enqueue());
      enqueue();
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
    expect(outboxBacklog(env.core).pending).toBe(2);
  });
});
