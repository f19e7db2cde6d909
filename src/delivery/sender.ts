import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import type { Core } from '../core.js';
import type { Worker } from '../modules/types.js';
import { pruneAttempts, recordAttempt } from './attempts.js';
import { pruneFailures } from './disabler.js';
import { onEnqueue, type DeliveryRow } from './outbox.js';
import { sendTry, type TryOutcome } from './send.js';
import { deliverySettings, retryAfterMs, retryDelayMs, type DeliverySettings } from './settings.js';
import { stmt, transaction } from '../store/db.js';

/** What a producer of deliveries (a `kind`) may add to the sender's work. */
export interface KindHandlers {
  /** answers which of the claimed rows may still be sent (e.g. their hook is enabled); the others are cancelled */
  sendable?(core: Core, rows: DeliveryRow[]): Set<number>;
  /** a delivery failed for good (its retries are used up); runs in the transaction recording it */
  exhausted?(core: Core, row: DeliveryRow, outcome: TryOutcome, at: number): void;
}

/** Handlers by delivery kind (`webhook`, `queue`, …); modules register theirs in `init`. */
export const DELIVERY_KINDS: Record<string, KindHandlers> = {};

/** Tunables of the sender; the defaults suit a server, tests shrink them. */
export interface SenderOptions {
  /** how often to look for rows written by other processes (the offline CLI) */
  pollIntervalMs?: number;
  /** a row being sent belongs to its sender this long without a heartbeat */
  leaseMs?: number;
  /** rows held in memory at most (queued per target or in flight) */
  maxInMemory?: number;
  /** how often old attempts are pruned */
  pruneIntervalMs?: number;
}

interface Target {
  active: number;
  queue: DeliveryRow[];
}

interface Finished {
  row: DeliveryRow;
  outcome: TryOutcome;
  at: number;
  settings: DeliverySettings;
}

const liveOwners = new Set<string>();
const CLAIM_BATCH = 500;
const FLUSH_BATCH = 500;
const FLUSH_DELAY_MS = 5;

/**
 * Starts the outbox sender of `tel serve`: claims due rows (its own enqueues at once, other
 * processes' within a poll interval), sends them with per-target concurrency over one pooled
 * keep-alive undici Agent, records every try, schedules retries with backoff, and on start
 * takes back the rows a killed server was sending. `stop()` finishes the requests in flight.
 */
export function startSender(core: Core, opts: SenderOptions = {}): Worker {
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  liveOwners.add(owner);
  const pollMs = opts.pollIntervalMs ?? 250;
  const leaseMs = opts.leaseMs ?? 60_000;
  const maxInMemory = opts.maxInMemory ?? 4000;
  const agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 10_000 } });
  const targets = new Map<string, Target>();
  let held = 0;
  let inFlight = 0;
  let finished: Finished[] = [];
  let stopping = false;
  let claimQueued = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  let drained: (() => void) | undefined;

  const log = (what: string, err: unknown) => process.stderr.write(`tel: delivery ${what}: ${(err as Error)?.message ?? err}\n`);

  function scheduleClaim(): void {
    if (claimQueued || stopping) return;
    claimQueued = true;
    setImmediate(() => {
      claimQueued = false;
      try {
        claim();
      } catch (err) {
        log('claim failed', err);
      }
    });
  }

  function claim(): void {
    const conc = deliverySettings(core).perTargetConcurrency;
    const window = conc * 2;
    for (let round = 0; round < 50 && !stopping; round++) {
      const room = maxInMemory - held;
      if (room <= 0) return;
      const saturated = [...targets].filter(([, t]) => t.active + t.queue.length >= window).map(([k]) => k);
      const limit = Math.min(room, CLAIM_BATCH);
      const candidates = stmt(
        core.db,
        `SELECT id, target FROM outbox WHERE status = 'pending' AND due_at <= ?
           AND target NOT IN (SELECT value FROM json_each(?)) ORDER BY due_at, id LIMIT ?`,
      ).all(Date.now(), JSON.stringify(saturated), limit) as { id: number; target: string }[];
      if (candidates.length === 0) break;
      const quota = new Map<string, number>();
      const ids: number[] = [];
      for (const c of candidates) {
        const t = targets.get(c.target);
        const left = quota.get(c.target) ?? window - (t ? t.active + t.queue.length : 0);
        if (left <= 0) continue;
        quota.set(c.target, left - 1);
        ids.push(c.id);
      }
      if (ids.length > 0) take(ids);
      if (candidates.length < limit) break;
    }
    scheduleNextDue();
  }

  function take(ids: number[]): void {
    const now = Date.now();
    const rows = transaction(core.db, () => {
      const claimed = stmt(
        core.db,
        `UPDATE outbox SET status = 'sending', owner = ?, lease_until = ?, modified = ?
         WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' RETURNING *`,
      ).all(owner, now + leaseMs, now, JSON.stringify(ids)) as unknown as DeliveryRow[];
      return dropUnsendable(claimed, now);
    });
    rows.sort((a, b) => a.due_at - b.due_at || a.id - b.id);
    for (const row of rows) {
      let t = targets.get(row.target);
      if (!t) targets.set(row.target, (t = { active: 0, queue: [] }));
      t.queue.push(row);
      held++;
    }
    for (const key of new Set(rows.map((r) => r.target))) pump(key);
  }

  function dropUnsendable(rows: DeliveryRow[], now: number): DeliveryRow[] {
    const byKind = new Map<string, DeliveryRow[]>();
    for (const r of rows) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
    const keep: DeliveryRow[] = [];
    for (const [kind, list] of byKind) {
      const check = DELIVERY_KINDS[kind]?.sendable;
      const ok = check ? check(core, list) : undefined;
      for (const r of list) {
        if (!ok || ok.has(r.id)) keep.push(r);
        else stmt(core.db, "UPDATE outbox SET status = 'cancelled', owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(now, r.id);
      }
    }
    return keep;
  }

  function pump(key: string): void {
    const t = targets.get(key);
    if (!t) return;
    const conc = deliverySettings(core).perTargetConcurrency;
    while (!stopping && t.active < conc && t.queue.length > 0) {
      const row = t.queue.shift()!;
      t.active++;
      inFlight++;
      void deliver(row, t, key);
    }
    if (t.active === 0 && t.queue.length === 0) targets.delete(key);
  }

  async function deliver(row: DeliveryRow, t: Target, key: string): Promise<void> {
    let settings: DeliverySettings;
    let outcome: TryOutcome;
    try {
      settings = deliverySettings(core, row.account_id);
      outcome = await sendTry(agent, row, settings.requestTimeoutMs);
    } catch (err) {
      settings = deliverySettings(core);
      outcome = { ok: false, url: row.url, reason: 'connection error', clientError: String(err), latencyMs: 0, reqHeaders: {}, reqBody: '' };
    }
    t.active--;
    inFlight--;
    finished.push({ row, outcome, at: Date.now(), settings });
    if (finished.length >= FLUSH_BATCH) flush();
    else flushTimer ??= setTimeout(flush, FLUSH_DELAY_MS);
    if (inFlight === 0) drained?.();
    pump(key);
  }

  function flush(): void {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
    try {
      transaction(core.db, () => {
        for (const f of batch) settle(f);
      });
      held -= batch.length;
    } catch (err) {
      log('recording failed, will retry', err);
      finished = batch.concat(finished);
      flushTimer = setTimeout(flush, 200);
      return;
    }
    scheduleClaim();
  }

  function settle({ row, outcome, at, settings }: Finished): void {
    const tryNo = row.tries + 1;
    const retriesLeft = Math.max(0, row.retries - row.tries);
    recordAttempt(core, row, outcome, tryNo, retriesLeft, at);
    if (outcome.ok) {
      stmt(core.db, "UPDATE outbox SET status = 'delivered', tries = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(tryNo, at, row.id);
    } else if (retriesLeft > 0) {
      const delay = retryAfterMs(outcome.retryAfter, settings, at) ?? retryDelayMs(settings, tryNo);
      stmt(core.db, "UPDATE outbox SET status = 'pending', tries = ?, due_at = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(
        tryNo,
        at + delay,
        at,
        row.id,
      );
    } else {
      stmt(core.db, "UPDATE outbox SET status = 'failed', tries = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(tryNo, at, row.id);
      DELIVERY_KINDS[row.kind]?.exhausted?.(core, row, outcome, at);
    }
  }

  function scheduleNextDue(): void {
    const { m } = stmt(core.db, "SELECT MIN(due_at) m FROM outbox WHERE status = 'pending'").get() as { m: number | null };
    const now = Date.now();
    if (m === null || m <= now || m >= dueAt) return;
    if (dueTimer) clearTimeout(dueTimer);
    dueAt = m;
    dueTimer = setTimeout(() => {
      dueTimer = undefined;
      dueAt = Infinity;
      scheduleClaim();
    }, m - now);
  }

  /** Takes back rows whose sender died (a killed local process) or stopped renewing its lease. */
  function recoverOrphans(): void {
    const now = Date.now();
    const owners = stmt(core.db, "SELECT DISTINCT owner FROM outbox WHERE status = 'sending'").all() as { owner: string | null }[];
    const dead = owners.map((o) => o.owner).filter((o): o is string => o !== null && o !== owner && isDeadOwner(o));
    transaction(core.db, () => {
      stmt(
        core.db,
        `UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL, modified = ?
         WHERE status = 'sending' AND owner != ? AND (lease_until < ? OR owner IN (SELECT value FROM json_each(?)))`,
      ).run(now, owner, now, JSON.stringify(dead));
    });
  }

  function heartbeat(): void {
    try {
      stmt(core.db, "UPDATE outbox SET lease_until = ? WHERE owner = ? AND status = 'sending'").run(Date.now() + leaseMs, owner);
      recoverOrphans();
    } catch (err) {
      log('heartbeat failed', err);
    }
  }

  function prune(): void {
    try {
      const s = deliverySettings(core);
      pruneAttempts(core, s.attemptsRetentionSeconds);
      pruneFailures(core, Math.max(s.attemptsRetentionSeconds * 1000, s.attemptFailureExpiryMs));
    } catch (err) {
      log('pruning failed', err);
    }
  }

  recoverOrphans();
  prune();
  const unsubscribe = onEnqueue(core, scheduleClaim);
  const pollTimer = setInterval(scheduleClaim, pollMs);
  const beatTimer = setInterval(heartbeat, Math.max(50, Math.floor(leaseMs / 3)));
  const pruneTimer = setInterval(prune, opts.pruneIntervalMs ?? 60_000);
  scheduleClaim();

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      clearInterval(pollTimer);
      clearInterval(beatTimer);
      clearInterval(pruneTimer);
      if (dueTimer) clearTimeout(dueTimer);
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      flush();
      if (core.db.isOpen) {
        stmt(core.db, "UPDATE outbox SET status = 'pending', owner = NULL, lease_until = NULL WHERE owner = ? AND status = 'sending'").run(owner);
      }
      liveOwners.delete(owner);
      await agent.close();
    },
  };
}

/** True when an owner string names a sender that cannot be running any more. */
function isDeadOwner(other: string): boolean {
  const [host, pidText] = other.split('/');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return !liveOwners.has(other);
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
