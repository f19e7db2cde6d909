import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test/helpers/server.js';
import { startSink, type Sink } from '../../test/helpers/sink.js';
import { closeCore, openCore } from '../core.js';
import type { Core, Worker } from '../core-type.js';
import { transaction } from '../store/db.js';
import { newOwner } from './lease.js';
import type { DeliveryKind } from './kinds.js';
import { enqueueDelivery, findDelivery, type DeliveryInput } from './outbox.js';
import { startSender, type SenderOptions } from './sender.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` answers something (not undefined or false), at most `ms`; fails with `what` otherwise. */
async function until<T>(what: string, check: () => T | undefined | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(10);
  }
}

describe('the sender of a server, started on its own', () => {
  const tmp = tempDir('tel-sender-');
  let core: Core;
  let sink: Sink;
  let sender: Worker | undefined;
  let refused = new Set<string>();
  let hiccups = 0;

  beforeAll(async () => {
    core = openCore(join(tmp.dir, 'sender.db'));
    // a kind whose rows are refused, by payload, when asked just before their try
    const picky: DeliveryKind = { sendable: (_c, rows) => new Set(rows.filter((r) => !refused.has(r.payload)).map((r) => r.id)) };
    // and one whose check fails
    const broken: DeliveryKind = {
      sendable: () => {
        throw new Error('no answer from the kind');
      },
    };
    // and one whose report of a delivery failed for good fails while `hiccups` lasts
    const flaky: DeliveryKind = {
      exhausted: () => {
        if (hiccups-- > 0) throw new Error('the report hiccuped');
      },
    };
    (core as { deliveryKinds: Record<string, DeliveryKind> }).deliveryKinds = { ...core.deliveryKinds, picky, broken, flaky };
    sink = await startSink();
  });
  afterEach(async () => {
    await sender?.stop();
    sender = undefined;
    sink.respond(() => ({ status: 200 }));
    core.config.remove('webhooks');
    refused = new Set();
  });
  afterAll(async () => {
    closeCore(core);
    await sink.close();
    tmp.cleanup();
  });

  const start = (opts: SenderOptions = {}) => (sender = startSender(core, { pollIntervalMs: 60_000, ...opts }));
  const enqueue = (path: string, over: Partial<DeliveryInput> = {}) =>
    enqueueDelivery(core, { kind: 'lab', accountId: 'a1', sourceId: `s${path}`, eventName: 'e', url: `${sink.url}${path}`, method: 'post', payload: { path }, ...over } as DeliveryInput);
  const attempts = (id: number) =>
    core.db.prepare('SELECT result, reason, client_error, http_status, try, retries_left FROM delivery_attempts WHERE delivery_id = ? ORDER BY id').all(id) as {
      result: string; reason: string | null; client_error: string | null; http_status: number | null; try: number; retries_left: number;
    }[];
  const arrived = (path: string) => sink.requests.filter((r) => r.path === path);

  it('a paced target starts its tries one interval apart, however many wait', async () => {
    start();
    // the sender's first try loads its HTTP client: not one of those timed
    enqueue('/warm');
    await sink.waitFor(1, { filter: (r) => r.path === '/warm' });
    for (let i = 0; i < 3; i++) enqueue('/paced', { ratePerS: 5, payload: { i } });
    const got = await sink.waitFor(3, { filter: (r) => r.path === '/paced' });
    // the third starts two intervals (400 ms) after the first at the earliest (half that asked: the first may arrive late)
    expect(got[2].at - got[0].at).toBeGreaterThanOrEqual(200);
    expect(got.map((r) => JSON.parse(r.body).i)).toEqual([0, 1, 2]);
  });

  it('rows another process wrote are seen as its commit changes the file, without waiting for the poll', async () => {
    start({ watchIntervalMs: 20 });
    await sleep(50);
    const other = openCore(join(tmp.dir, 'sender.db'));
    try {
      enqueueDelivery(other, { kind: 'lab', accountId: 'a1', eventName: 'e', url: `${sink.url}/other`, method: 'post', payload: {} });
    } finally {
      closeCore(other);
    }
    await sink.waitFor(1, { filter: (r) => r.path === '/other', timeoutMs: 3000 });
  });

  it('a retry is sent when it falls due, woken by its own timer', async () => {
    core.config.set('webhooks', { default: { retry_base_delay_ms: 300 } });
    let n = 0;
    sink.respond((r) => (r.path === '/retry' && n++ === 0 ? { status: 500 } : { status: 200 }));
    start();
    const id = enqueue('/retry', { retries: 1 });
    const [first, second] = await sink.waitFor(2, { filter: (r) => r.path === '/retry', timeoutMs: 4000 });
    expect(second.at - first.at).toBeGreaterThanOrEqual(290);
    await until('the retry to be recorded', () => findDelivery(core, id)!.status === 'delivered');
    expect(attempts(id).map((a) => [a.try, a.result, a.retries_left])).toEqual([
      [1, 'failure', 1],
      [2, 'success', 0],
    ]);
  });

  it("rows a sender that is gone left sending are taken back, at start and while it runs", async () => {
    const gone = newOwner();
    const { retireWorker } = await import('../store/presence.js');
    retireWorker(gone);
    const orphan = enqueue('/orphan');
    core.db.prepare("UPDATE outbox SET status = 'sending', owner = ?, lease_until = ? WHERE id = ?").run(gone, Date.now() + 60_000, orphan);
    start();
    await sink.waitFor(1, { filter: (r) => r.path === '/orphan' });
    // one whose lease ran out while this sender runs: found within the second
    const late = enqueue('/late', { dueAt: Date.now() + 60_000 });
    core.db.prepare("UPDATE outbox SET status = 'sending', owner = 'elsewhere/1/1', lease_until = ?, due_at = ? WHERE id = ?").run(Date.now() - 1, Date.now(), late);
    await sink.waitFor(1, { filter: (r) => r.path === '/late', timeoutMs: 4000 });
    await until('both to be recorded', () => findDelivery(core, late)!.status === 'delivered' && findDelivery(core, orphan)!.status === 'delivered');
  });

  it("a row its kind no longer wants by its try is cancelled, never sent; the others go", async () => {
    refused.add('{"path":"/no"}');
    start();
    const no = enqueue('/no', { kind: 'picky' });
    const yes = enqueue('/yes', { kind: 'picky' });
    await until('the wanted one to be delivered', () => findDelivery(core, yes)!.status === 'delivered');
    expect(findDelivery(core, no)).toMatchObject({ status: 'cancelled', owner: null });
    expect(arrived('/no')).toHaveLength(0);
    expect(attempts(no)).toEqual([]);
  });

  it('with deny_private_networks, a try that reaches this machine fails before a byte is sent', async () => {
    core.config.set('webhooks', { default: { deny_private_networks: true } });
    start();
    const id = enqueue('/private');
    await until('the try to be recorded', () => findDelivery(core, id)!.status === 'failed');
    expect(attempts(id)).toEqual([
      { result: 'failure', reason: 'connection error', client_error: '127.0.0.1 is not a public address (webhooks deny_private_networks)', http_status: null, try: 1, retries_left: 0 },
    ]);
    expect(arrived('/private')).toHaveLength(0);
  });

  it("a row no request can be made of (another process's payload that is not JSON) fails as a connection error", async () => {
    // polled as a server polls: on a busy machine the row can fall due between the start's claim
    // and the look for the next due row, which then leaves it to the poll (60 s in the other tests)
    start({ pollIntervalMs: 250 });
    // due in a moment: it waits on disk, where its payload is spoilt before it is claimed
    const id = enqueue('/bad', { method: 'get', dueAt: Date.now() + 100 });
    core.db.prepare("UPDATE outbox SET payload = 'not json' WHERE id = ?").run(id);
    await until('the try to be recorded', () => findDelivery(core, id)!.status === 'failed');
    expect(attempts(id)[0]).toMatchObject({ result: 'failure', reason: 'connection error' });
    expect(attempts(id)[0].client_error).toMatch(/SyntaxError/);
  });

  it('one row in memory at most: every delivery still goes, one at a time', async () => {
    let active = 0;
    let most = 0;
    sink.respond(async () => {
      most = Math.max(most, ++active);
      await sleep(20);
      active--;
      return { status: 200 };
    });
    // no poll: each recorded result makes room, and the next row is claimed then
    start({ maxInMemory: 1 });
    const ids = transaction(core.db, () => Array.from({ length: 6 }, (_, i) => enqueue('/narrow', { payload: { i } })));
    await until('all to be delivered', () => ids.every((id) => findDelivery(core, id)!.status === 'delivered'), 8000);
    expect(arrived('/narrow')).toHaveLength(6);
    expect(most).toBe(1);
  });

  it('stopping finishes and records the tries in flight, and gives back the rows not started', async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    sink.respond(async (r) => {
      if (r.path === '/slow') await sleep(150);
      return { status: 200 };
    });
    const s = start();
    const ids = transaction(core.db, () => [0, 1, 2].map((i) => enqueue('/slow', { payload: { i } })));
    await sink.waitFor(1, { filter: (r) => r.path === '/slow' });
    await s.stop();
    sender = undefined;
    expect(ids.map((id) => findDelivery(core, id)!.status)).toEqual(['delivered', 'pending', 'pending']);
    expect(ids.map((id) => findDelivery(core, id)!.owner)).toEqual([null, null, null]);
    expect(attempts(ids[0])).toHaveLength(1);
    expect(arrived('/slow')).toHaveLength(1);
  });

  it('a long try keeps its lease: the rows stay this sender\'s while the heartbeat renews them', async () => {
    sink.respond(async (r) => {
      if (r.path === '/long') await sleep(1000);
      return { status: 200 };
    });
    start({ leaseMs: 300 });
    const id = enqueue('/long');
    await sink.waitFor(1, { filter: (r) => r.path === '/long' });
    const first = findDelivery(core, id)!.lease_until!;
    // the heartbeat beats every 100 ms
    await sleep(500);
    const later = findDelivery(core, id)!;
    expect(later.status).toBe('sending');
    expect(later.lease_until!).toBeGreaterThan(first);
    await until('it to be delivered', () => findDelivery(core, id)!.status === 'delivered');
    expect(arrived('/long')).toHaveLength(1);
  });

  it('old attempts are pruned as the sender goes, by the retention in force', async () => {
    core.db.exec('DELETE FROM delivery_attempts');
    const id = enqueue('/old', { dueAt: Date.now() + 3_600_000 });
    const insert = core.db.prepare(`INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, event_name, uri, method, result, try, retries_left, created)
      VALUES (?, 'e', 'lab', 'a1', 'e', 'http://x/', 'post', 'success', 1, 0, ?)`);
    insert.run(id, Date.now() - 10_000);
    insert.run(id, Date.now());
    core.config.set('webhooks', { default: { attempts_retention_s: 5 } });
    start({ pruneIntervalMs: 50 });
    await until('the old attempt to be pruned', () => (core.db.prepare('SELECT count(*) AS n FROM delivery_attempts WHERE delivery_id = ?').get(id) as { n: number }).n === 1);
  });

  it('rows whose transaction rolled back give their room back: the next ones are still taken at once', async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    start({ maxInMemory: 2 });
    // past its first look at the file: from now on only what this process does wakes it
    await sleep(100);
    for (let i = 0; i < 2; i++) {
      expect(() =>
        transaction(core.db, () => {
          enqueue('/undone');
          throw new Error('undone');
        }),
      ).toThrow('undone');
    }
    const id = enqueue('/undone');
    await sink.waitFor(1, { filter: (r) => r.path === '/undone', timeoutMs: 2000 });
    await until('it to be delivered', () => findDelivery(core, id)!.status === 'delivered');
  });

  it('rows cancelled just before their try free their room: with room for two, a third wanted row still goes after three cancelled ones', async () => {
    for (let i = 0; i < 3; i++) refused.add(JSON.stringify({ path: '/refused', i }));
    start({ maxInMemory: 2 });
    const no = [0, 1, 2].map((i) => enqueue('/refused', { kind: 'picky', payload: { path: '/refused', i } }));
    await until('the refused ones to be cancelled', () => no.every((id) => findDelivery(core, id)!.status === 'cancelled'), 2000);
    const yes = enqueue('/wanted', { kind: 'picky' });
    await until('the wanted one to be delivered', () => findDelivery(core, yes)!.status === 'delivered', 2000);
    expect(arrived('/refused')).toHaveLength(0);
  });

  it('a paced target keeps its pace across heartbeats: a row queued after the last one went waits out the interval', async () => {
    // a heartbeat every 50 ms, the pace one try every 500 ms
    start({ leaseMs: 150 });
    enqueue('/warm-pace');
    await sink.waitFor(1, { filter: (r) => r.path === '/warm-pace' });
    enqueue('/pace-kept', { ratePerS: 2, payload: { i: 0 } });
    await sink.waitFor(1, { filter: (r) => r.path === '/pace-kept' });
    await sleep(150);
    enqueue('/pace-kept', { ratePerS: 2, payload: { i: 1 } });
    const [first, second] = await sink.waitFor(2, { filter: (r) => r.path === '/pace-kept' });
    // the second starts a whole interval after the first (a little less asked: the first may arrive late)
    expect(second.at - first.at).toBeGreaterThanOrEqual(400);
  });

  it('rows that fell due at the same instant go out in the order they were written', async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    const due = Date.now() - 1000;
    const ids = [0, 1, 2, 3].map((i) => enqueue('/same-due', { payload: { i } }));
    for (const id of ids) core.db.prepare('UPDATE outbox SET due_at = ? WHERE id = ?').run(due, id);
    start();
    const got = await sink.waitFor(4, { filter: (r) => r.path === '/same-due' });
    expect(got.map((r) => JSON.parse(r.body).i)).toEqual([0, 1, 2, 3]);
  });

  it("a kind whose check fails does not hold its rows back: they are sent, and the failure is reported", async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      start();
      const id = enqueue('/broken', { kind: 'broken' });
      await until('it to be delivered', () => findDelivery(core, id)!.status === 'delivered');
      expect(write.mock.calls.map(([text]) => String(text))).toContain('tel: delivery check failed: no answer from the kind\n');
    } finally {
      write.mockRestore();
    }
  });

  it('results whose recording failed are recorded again shortly: one attempt, the delivery failed for good, the failure reported', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      sink.respond(() => ({ status: 500 }));
      // the group commit runs a unit that throws a second time, alone: both runs fail
      hiccups = 2;
      start();
      const id = enqueue('/hiccup', { kind: 'flaky' });
      await until('it to be recorded', () => findDelivery(core, id)!.status === 'failed', 3000);
      expect(attempts(id).map((a) => [a.try, a.result, a.http_status])).toEqual([[1, 'failure', 500]]);
      expect(arrived('/hiccup')).toHaveLength(1);
      expect(write.mock.calls.map(([text]) => String(text))).toContain('tel: delivery recording failed, will retry: the report hiccuped\n');
    } finally {
      write.mockRestore();
      hiccups = 0;
    }
  });

  it("a target's deliveries go in the order they were queued, those that waited on disk before those queued after them", async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    sink.respond(async () => {
      await sleep(30);
      return { status: 200 };
    });
    // no poll: what waits on disk comes back as the target drains
    start();
    // more than its window (two rounds of one try) at once: the rest waits on disk
    transaction(core.db, () => {
      for (let i = 0; i < 6; i++) enqueue('/fifo', { payload: { i } });
    });
    // more while the first ones are sent and the window has room again: behind those on disk
    await sink.waitFor(2, { filter: (r) => r.path === '/fifo' });
    for (let i = 6; i < 12; i++) {
      await sleep(7);
      enqueue('/fifo', { payload: { i } });
    }
    const got = await sink.waitFor(12, { filter: (r) => r.path === '/fifo', timeoutMs: 5000 });
    expect(got.map((r) => JSON.parse(r.body).i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('a sender that stops closes its connections', async () => {
    const open = new Set<unknown>();
    const server = createServer((_req, res) => res.end('ok'));
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const s = start();
      const id = enqueue('/kept', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kept` });
      await until('it to be delivered', () => findDelivery(core, id)!.status === 'delivered');
      // kept alive for the next try while the sender runs
      expect(open.size).toBe(1);
      await s.stop();
      sender = undefined;
      await until('its connection to close', () => open.size === 0, 2000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("rows another process wrote for several endpoints are all taken in one look, each endpoint's in order, ahead of rows queued here later", async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    start({ watchIntervalMs: 20 });
    await sleep(50);
    const other = openCore(join(tmp.dir, 'sender.db'));
    try {
      transaction(other.db, () => {
        for (let i = 0; i < 4; i++) for (const p of ['/ep-a', '/ep-b', '/ep-c']) enqueueDelivery(other, { kind: 'lab', accountId: 'a1', sourceId: p, eventName: 'e', url: `${sink.url}${p}`, method: 'post', payload: { i } });
      });
    } finally {
      closeCore(other);
    }
    await sink.waitFor(1, { filter: (r) => r.path === '/ep-a' });
    for (let i = 4; i < 6; i++) enqueue('/ep-a', { sourceId: '/ep-a', payload: { i } });
    const got = await sink.waitFor(14, { filter: (r) => r.path.startsWith('/ep-'), timeoutMs: 4000 });
    const order = (p: string) => got.filter((r) => r.path === p).map((r) => JSON.parse(r.body).i);
    expect([order('/ep-a'), order('/ep-b'), order('/ep-c')]).toEqual([[0, 1, 2, 3, 4, 5], [0, 1, 2, 3], [0, 1, 2, 3]]);
  });

  it('rows claimed together go out by when they fell due, not by when they were written', async () => {
    core.config.set('webhooks', { default: { per_target_concurrency: 1 } });
    const now = Date.now();
    const ids = [0, 1, 2].map((i) => enqueue('/due-order', { payload: { i } }));
    // the last written fell due first
    ids.forEach((id, i) => core.db.prepare('UPDATE outbox SET due_at = ? WHERE id = ?').run(now - 1000 * (i + 1), id));
    start();
    const got = await sink.waitFor(3, { filter: (r) => r.path === '/due-order' });
    expect(got.map((r) => JSON.parse(r.body).i)).toEqual([2, 1, 0]);
  });
});
