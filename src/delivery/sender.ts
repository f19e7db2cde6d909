import type { Agent } from 'undici';
import type { Core } from '../core-type.js';
import type { Worker } from '../core-type.js';
import { pruneAttempts, recordAttempt } from './attempts.js';
import { dropUnsendable } from './kinds.js';
import { newOwner, recoverOrphans, releaseOwner, renewLease } from './lease.js';
import { breakerFailures } from './breakers.js';
import { attachClaimer, onEnqueue, type DeliveryRow, type InlineClaim } from './outbox.js';
import { sendTry, type TryOutcome } from './send.js';
import { deliverySettings, retryAfterMs, retryDelayMs, type DeliverySettings } from './settings.js';
import { stmt, transaction } from '../store/db.js';
import { groupCommit } from '../store/group-commit.js';

/** Tunables of the sender; the defaults suit a server, tests shrink them. */
export interface SenderOptions {
  /** how often to look for due rows in any case */
  pollIntervalMs?: number;
  /** how often to check whether another process (the offline CLI) wrote the file: a cheap read */
  watchIntervalMs?: number;
  /** a row being sent belongs to its sender this long without a heartbeat */
  leaseMs?: number;
  /** rows held in memory at most (queued per target or in flight) */
  maxInMemory?: number;
  /** how often old attempts are pruned */
  pruneIntervalMs?: number;
}

/** A claimed row and when it was claimed. */
interface HeldRow extends DeliveryRow {
  heldAt: number;
}

interface Target {
  active: number;
  queue: HeldRow[];
  /** when a try to it last ended (unix ms) */
  lastDoneAt: number;
  /** consecutive failed tries; at the breaker threshold the target is probed one try at a time */
  failures: number;
  /** moving average of its tries' duration (ms) */
  latencyMs: number;
  /** the hook (or queue) the target belongs to, for the breaker's record */
  sourceId: string | null;
  /** rows of this process's transactions reserved for it, not yet committed */
  reserved: number;
  /** rows of it wait on disk (its window was full): new ones queue behind them there */
  spilled: boolean;
}

/** A breaker that changed state, recorded with the next flush. */
interface BreakerChange {
  target: string;
  sourceId: string | null;
  state: 'open' | 'closed';
  failures: number;
  at: number;
}

interface Finished {
  row: DeliveryRow;
  outcome: TryOutcome;
  at: number;
  settings: DeliverySettings;
}

const CLAIM_BATCH = 500;
const FLUSH_BATCH = 500;
/** Results are recorded (and busy targets topped up) in one transaction at most this often. */
const FLUSH_DELAY_MS = 100;
/** A row waiting in memory longer than this is checked again before it is sent. */
const RECHECK_AFTER_MS = 250;
/** Rows held in memory for a target that answers quickly, in multiples of its concurrency. */
const FAST_WINDOW_FACTOR = 256;
/** A target answering within this (on average) is a quick one. */
const FAST_LATENCY_MS = 100;
/** How often rows of senders that are gone are looked for (a cheap read of the rows being sent). */
const RECOVERY_INTERVAL_MS = 1000;

/**
 * Starts the outbox sender of `tel serve`: claims due rows (its own enqueues at once, other
 * processes' within a poll interval), sends them with per-target concurrency over one pooled
 * keep-alive undici Agent, records every try, schedules retries with backoff, and on start
 * takes back the rows a killed server was sending. `stop()` finishes the requests in flight.
 */
export function startSender(core: Core, opts: SenderOptions = {}): Worker {
  const owner = newOwner();
  const pollMs = opts.pollIntervalMs ?? 250;
  const leaseMs = opts.leaseMs ?? 30_000;
  const maxInMemory = opts.maxInMemory ?? 10_000;
  // Connecting gets the system request timeout too (an Agent has one connect timeout for all).
  // Connections per origin are not capped here: each target's concurrency caps its own, so a
  // request never waits inside undici (where its timeout would run) and an endpoint that hangs
  // holds only its target's connections, never the ones of its neighbours on the same origin.
  // undici is loaded with the first delivery: commands that never send do not pay for it.
  let agent: Promise<Agent> | undefined;
  const agentOf = (): Promise<Agent> =>
    (agent ??= import('undici').then(
      ({ Agent }) => new Agent({ keepAliveTimeout: 30_000, connect: { timeout: deliverySettings(core).requestTimeoutMs } }),
    ));
  const targets = new Map<string, Target>();
  let held = 0;
  /** rows reserved by enqueues of this process whose transaction has not ended */
  let reserved = 0;
  let inFlight = 0;
  let finished: Finished[] = [];
  let breakerChanges: BreakerChange[] = [];
  let stopping = false;
  let claimQueued = false;
  let starved = false;
  const toRefill = new Set<string>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  let drained: (() => void) | undefined;

  // Settings per account, read again after every flush (config changes apply within milliseconds).
  const settingsCache = new Map<string, DeliverySettings>();
  const settingsOf = (accountId = ''): DeliverySettings => {
    let s = settingsCache.get(accountId);
    if (!s) settingsCache.set(accountId, (s = deliverySettings(core, accountId || undefined)));
    return s;
  };

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

  /**
   * Rows of one target held in memory at most: many while it answers (so a fast target never
   * waits for the next claim), a couple of rounds of its concurrency while it answers nothing.
   */
  function windowOf(key: string): number {
    const t = targets.get(key);
    const conc = concurrencyOf(t);
    // A target that answers quickly drains its window between claims; a slow one needs little
    // more than its concurrency in memory (the rest of its backlog waits on disk).
    return t && t.lastDoneAt > Date.now() - 1000 && t.failures === 0 && t.latencyMs < FAST_LATENCY_MS ? conc * FAST_WINDOW_FACTOR : conc * 2;
  }

  function breakerOpen(t: Target | undefined): boolean {
    return t !== undefined && t.failures >= settingsOf().breakerFailureThreshold;
  }

  /**
   * Tries in flight to a target at most: the configured concurrency, or one while its breaker is
   * open — an endpoint that keeps failing is probed one try at a time until it answers again,
   * its other rows waiting (with their retry schedule) and taking no more of the shared capacity.
   */
  function concurrencyOf(t: Target | undefined): number {
    return breakerOpen(t) ? 1 : settingsOf().perTargetConcurrency;
  }

  function load(key: string): number {
    const t = targets.get(key);
    return t ? t.active + t.queue.length : 0;
  }

  /** Finds due rows of any target that is not full (new targets, retries, other processes' rows). */
  function claim(): void {
    settingsCache.clear();
    starved = false;
    for (let round = 0; round < 50 && !stopping; round++) {
      const room = maxInMemory - held;
      if (room <= 0) {
        starved = true;
        return;
      }
      const saturated = [...targets.keys()].filter((k) => load(k) >= windowOf(k));
      const limit = Math.min(room, CLAIM_BATCH);
      // Reads the (due_at, id, target) index only; rows of full targets are skipped there.
      const candidates = stmt(
        core.db,
        `SELECT id, target FROM outbox WHERE status = 'pending' AND due_at <= ?
           AND target NOT IN (SELECT value FROM json_each(?)) ORDER BY due_at, id LIMIT ?`,
      ).all(Date.now(), JSON.stringify(saturated), limit) as { id: number; target: string }[];
      if (candidates.length === 0) break;
      const quota = new Map<string, number>();
      const ids: number[] = [];
      for (const c of candidates) {
        const left = quota.get(c.target) ?? windowOf(c.target) - load(c.target);
        if (left <= 0) continue;
        quota.set(c.target, left - 1);
        ids.push(c.id);
      }
      if (ids.length > 0) take(ids);
      if (candidates.length < limit) break;
    }
    scheduleNextDue();
  }

  /**
   * Claims due rows of one busy target from its own index range, without looking at other
   * targets' rows; `freed` rows are about to leave memory. Answers the rows (not yet held).
   */
  function claimFor(key: string, freed: number): DeliveryRow[] {
    const want = Math.min(windowOf(key) - load(key), maxInMemory - held + freed);
    if (want <= 0 || stopping) return [];
    const now = Date.now();
    return transaction(core.db, () => {
      const claimed = stmt(
        core.db,
        `UPDATE outbox SET status = 'sending', owner = ?, lease_until = ?, modified = ?
         WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND target = ? AND due_at <= ? ORDER BY due_at, id LIMIT ?)
         RETURNING *`,
      ).all(owner, now + leaseMs, now, key, now, want) as unknown as DeliveryRow[];
      // fewer than asked for: nothing of it is left waiting on disk (new rows may come inline again)
      if (claimed.length < want) {
        const t = targets.get(key);
        if (t) t.spilled = false;
      }
      return claimed.length > 0 ? dropUnsendable(core, claimed, now) : claimed;
    });
  }

  /** Marks rows as being sent by this sender (in the caller's transaction, or its own). */
  function claimIds(ids: number[]): DeliveryRow[] {
    const now = Date.now();
    return transaction(core.db, () => {
      const claimed = stmt(
        core.db,
        `UPDATE outbox SET status = 'sending', owner = ?, lease_until = ?, modified = ?
         WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' RETURNING *`,
      ).all(owner, now + leaseMs, now, JSON.stringify(ids)) as unknown as DeliveryRow[];
      return dropUnsendable(core, claimed, now);
    });
  }

  /** Queues claimed rows per target and starts what each target's concurrency allows. */
  function hold(rows: DeliveryRow[]): void {
    rows.sort((a, b) => a.due_at - b.due_at || a.id - b.id);
    const now = Date.now();
    for (const row of rows) {
      targetOf(row.target, row.source_id).queue.push(Object.assign(row, { heldAt: now }));
      held++;
    }
    for (const key of new Set(rows.map((r) => r.target))) pump(key);
  }

  function targetOf(key: string, sourceId: string | null): Target {
    let t = targets.get(key);
    if (!t) {
      t = { active: 0, queue: [], lastDoneAt: 0, failures: breakerFailures(core, key), latencyMs: 0, sourceId, reserved: 0, spilled: false };
      targets.set(key, t);
    }
    return t;
  }

  /**
   * Rows enqueued in this process come here already claimed, in the transaction that writes them,
   * while their target has room in its window (and no older rows of it wait on disk): no claim
   * query, no second transaction. A row it has no room for is written pending and claimed in turn.
   */
  const inline = {
    reserve(key: string): InlineClaim | undefined {
      if (stopping) return undefined;
      if (held + reserved >= maxInMemory) {
        // claimed from disk once memory frees up (see flush)
        starved = true;
        return undefined;
      }
      const t = targetOf(key, null);
      if (t.spilled) return undefined;
      if (t.active + t.queue.length + t.reserved >= windowOf(key)) {
        t.spilled = true;
        return undefined;
      }
      t.reserved++;
      reserved++;
      return { owner, leaseUntil: Date.now() + leaseMs };
    },
    accept(row: DeliveryRow): void {
      const t = targetOf(row.target, row.source_id);
      t.sourceId ??= row.source_id;
      t.reserved--;
      reserved--;
      t.queue.push(Object.assign(row, { heldAt: Date.now() }));
      held++;
      pump(row.target);
    },
    release(key: string): void {
      const t = targets.get(key);
      if (t) t.reserved--;
      reserved--;
    },
  };

  function take(ids: number[]): void {
    hold(claimIds(ids));
  }

  function pump(key: string): void {
    const t = targets.get(key);
    if (!t) return;
    const conc = concurrencyOf(t);
    while (!stopping && t.active < conc && t.queue.length > 0) {
      const row = t.queue.shift()!;
      // A row that waited behind a slow target is checked again (its hook may be gone by now).
      if (Date.now() - row.heldAt > RECHECK_AFTER_MS && !stillSendable(row)) continue;
      t.active++;
      inFlight++;
      void deliver(row, t, key);
    }
  }

  function stillSendable(row: DeliveryRow): boolean {
    try {
      if (transaction(core.db, () => dropUnsendable(core, [row], Date.now())).length > 0) return true;
    } catch (err) {
      log('check failed', err);
      return true;
    }
    held--;
    return false;
  }

  async function deliver(row: DeliveryRow, t: Target, key: string): Promise<void> {
    let settings: DeliverySettings;
    let outcome: TryOutcome;
    try {
      settings = settingsOf(row.account_id);
      outcome = await sendTry(await agentOf(), row, settings.requestTimeoutMs);
    } catch (err) {
      settings = settingsOf();
      outcome = { ok: false, url: row.url, reason: 'connection error', clientError: String(err), latencyMs: 0, reqHeaders: {}, reqBody: '' };
    }
    t.active--;
    // the first try's duration starts the average (a slow target is known as slow at once)
    t.latencyMs = t.lastDoneAt === 0 ? outcome.latencyMs : t.latencyMs * 0.8 + outcome.latencyMs * 0.2;
    t.lastDoneAt = Date.now();
    inFlight--;
    noteOutcome(t, key, outcome.ok);
    finished.push({ row, outcome, at: Date.now(), settings });
    if (finished.length >= FLUSH_BATCH) void flush();
    else flushTimer ??= setTimeout(flush, FLUSH_DELAY_MS);
    if (inFlight === 0) drained?.();
    pump(key);
    // Topped up from disk in the transaction that records these results.
    if (t.spilled && load(key) < windowOf(key) / 2) toRefill.add(key);
  }

  /** Counts a try's outcome into its target's breaker; a change of state is recorded at the next flush. */
  function noteOutcome(t: Target, key: string, ok: boolean): void {
    const wasOpen = breakerOpen(t);
    t.failures = ok ? 0 : t.failures + 1;
    const open = breakerOpen(t);
    if (open !== wasOpen) breakerChanges.push({ target: key, sourceId: t.sourceId, state: open ? 'open' : 'closed', failures: t.failures, at: Date.now() });
  }

  /**
   * Records finished tries (and tops up busy targets) in the group commit of the next turn, the
   * one the API's writes of that turn share. One flush at a time; what finishes meanwhile waits
   * for the next. Resolves once the results are recorded (or given back to try again).
   */
  function flush(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    if (flushing) return flushing;
    if (finished.length === 0) return Promise.resolve();
    settingsCache.clear();
    const batch = finished;
    finished = [];
    const changes = breakerChanges;
    breakerChanges = [];
    const keys = [...toRefill];
    toRefill.clear();
    const recorded = groupCommit(core.db, () => {
      let claimed: DeliveryRow[] = [];
      const delivered: number[] = [];
      for (const f of batch) if (settle(f)) delivered.push(f.row.id);
      // every success ends the same way: one statement for all of them
      stmt(
        core.db,
        "UPDATE outbox SET status = 'delivered', tries = tries + 1, owner = NULL, lease_until = NULL, modified = ? WHERE id IN (SELECT value FROM json_each(?))",
      ).run(Date.now(), JSON.stringify(delivered));
      for (const c of changes) {
        stmt(
          core.db,
          `INSERT INTO delivery_breakers (target, source_id, state, failures, changed) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(target) DO UPDATE SET source_id = excluded.source_id, state = excluded.state, failures = excluded.failures, changed = excluded.changed`,
        ).run(c.target, c.sourceId, c.state, c.failures, c.at);
      }
      for (const k of keys) claimed = claimed.concat(claimFor(k, batch.length));
      return claimed;
    });
    flushing = recorded.then(
      (claimed) => {
        held -= batch.length;
        hold(claimed);
        if (starved) scheduleClaim();
        scheduleNextDue();
      },
      (err: unknown) => {
        log('recording failed, will retry', err);
        finished = batch.concat(finished);
        breakerChanges = changes.concat(breakerChanges);
        if (!stopping) flushTimer ??= setTimeout(flush, 200);
      },
    ).finally(() => {
      flushing = undefined;
      if (stopping || finished.length === 0) return;
      if (finished.length >= FLUSH_BATCH) void flush();
      else flushTimer ??= setTimeout(flush, FLUSH_DELAY_MS);
    });
    return flushing;
  }

  /** Records one try and schedules what follows; answers true for a success (the caller marks those). */
  function settle({ row, outcome, at, settings }: Finished): boolean {
    const tryNo = row.tries + 1;
    const retriesLeft = Math.max(0, row.retries - row.tries);
    recordAttempt(core, row, outcome, tryNo, retriesLeft, at);
    if (outcome.ok) return true;
    if (retriesLeft > 0) {
      const delay = retryAfterMs(outcome.retryAfter, settings, at) ?? retryDelayMs(settings, tryNo);
      stmt(core.db, "UPDATE outbox SET status = 'pending', tries = ?, due_at = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(
        tryNo,
        at + delay,
        at,
        row.id,
      );
    } else {
      stmt(core.db, "UPDATE outbox SET status = 'failed', tries = ?, owner = NULL, lease_until = NULL, modified = ? WHERE id = ?").run(tryNo, at, row.id);
      core.deliveryKinds[row.kind]?.exhausted?.(core, row, outcome, at);
    }
    return false;
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

  function heartbeat(): void {
    const idleSince = Date.now() - 5000;
    for (const [key, t] of targets) if (t.active === 0 && t.queue.length === 0 && t.lastDoneAt < idleSince) targets.delete(key);
    try {
      renewLease(core, owner, leaseMs);
      recoverOrphans(core, owner);
    } catch (err) {
      log('heartbeat failed', err);
    }
  }

  function prune(): void {
    try {
      const s = deliverySettings(core);
      pruneAttempts(core, s.attemptsRetentionSeconds);
    } catch (err) {
      log('pruning failed', err);
    }
  }

  recoverOrphans(core, owner);
  prune();
  const unsubscribe = onEnqueue(core, scheduleClaim);
  const detach = attachClaimer(core, inline);
  const pollTimer = setInterval(scheduleClaim, pollMs);
  let seenVersion = -1;
  const watchTimer = setInterval(() => {
    const v = (stmt(core.db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== seenVersion) {
      seenVersion = v;
      scheduleClaim();
    }
  }, opts.watchIntervalMs ?? 20);
  const beatTimer = setInterval(heartbeat, Math.max(50, Math.floor(leaseMs / 3)));
  // Another server on the file that dies is noticed within a second (see lease.ts), not a lease.
  const recoveryTimer = setInterval(() => {
    try {
      if (recoverOrphans(core, owner) > 0) scheduleClaim();
    } catch (err) {
      log('recovery failed', err);
    }
  }, RECOVERY_INTERVAL_MS);
  const pruneTimer = setInterval(prune, opts.pruneIntervalMs ?? 60_000);
  scheduleClaim();

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      detach();
      clearInterval(pollTimer);
      clearInterval(watchTimer);
      clearInterval(beatTimer);
      clearInterval(recoveryTimer);
      clearInterval(pruneTimer);
      if (dueTimer) clearTimeout(dueTimer);
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      // what is still unrecorded is recorded now (a few tries if the file is busy)
      for (let i = 0; i < 5 && (flushing || finished.length > 0); i++) await flush();
      releaseOwner(core, owner);
      if (agent) await (await agent).close();
    },
  };
}
