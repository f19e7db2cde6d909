import type { Agent } from 'undici';
import type { Core, Worker } from '../core-type.js';
import { stmt, withoutWaiting } from '../store/db.js';
import { holdsWhileFaulty, onStorageBack, reportDbError, storageFaulty } from '../store/health.js';
import { groupCommit, limitUnitsPerCommit } from '../store/group-commit.js';
import { pruneAttempts } from './attempts.js';
import { claimRows, claimTargetRows, dueIds, nextDueAt, pendingTargets, type Claimant } from './claim.js';
import { cancel, stillWanted } from './kinds.js';
import { newOwner, recoverOrphans, releaseOwner, renewLease } from './lease.js';
import { attachClaimer, onEnqueue, type DeliveryRow, type InlineClaimer } from './outbox.js';
import { sendTry, type TryOutcome } from './send.js';
import { currentDeliverySettings, deliverySettings, denyPrivateNetworks, type DeliverySettings } from './settings.js';
import { notingPeers, publicOnly } from './private-networks.js';
import { recordTries, type FinishedTry } from './settle.js';
import { Targets, type BreakerChange, type Target } from './targets.js';
import { setLongTimeout, type LongTimeout } from '../util/timers.js';

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

/**
 * Rows claimed from the file a turn at most (the next turn goes on while more are due): claiming
 * holds the event loop, some 10 µs a row, so requests wait no more than a few milliseconds for it.
 */
const CLAIM_BATCH = 150;
/**
 * Results recorded in one commit at most, and how long after a try ends they are: the commit that
 * records them holds the event loop, so it is kept to a few milliseconds (requests wait behind it).
 */
const FLUSH_BATCH = 200;
const FLUSH_DELAY_MS = 25;
/** Rows a spilled target is topped up with from disk at most per flush (claiming them holds the loop too). */
const REFILL_BATCH = 250;
/**
 * Units a commit takes at most while the sender falls behind (see Targets.fallingBehind). Measured
 * on a stream of simulated calls (32 in flight) that the sender could not keep up with: 0.72
 * million instructions a call at 8, 0.73 at 4, 0.83 at 16, 0.93 with no limit (the backlog then
 * went to disk and was claimed back).
 */
const UNITS_PER_COMMIT_BEHIND = 8;
/** How often rows of senders that are gone are looked for (a cheap read of the rows being sent). */
const RECOVERY_INTERVAL_MS = 1000;

/**
 * Starts the outbox sender of `tel serve`. Rows enqueued in this process come to it already
 * claimed (see `InlineClaimer`); others — retries coming due, other processes' rows, a killed
 * sender's rows taken back — are claimed from the file (claim.ts). Each target (a source's
 * endpoint) has its queue, window and breaker (targets.ts); one try at a time goes through one
 * pooled keep-alive undici Agent (send.ts); results are recorded in batches (settle.ts), in the
 * group commit the API's writes share. `stop()` finishes the tries in flight and records them.
 */
export function startSender(core: Core, opts: SenderOptions = {}): Worker {
  const claimant: Claimant = { owner: newOwner(), leaseMs: opts.leaseMs ?? 30_000 };
  const pollMs = opts.pollIntervalMs ?? 250;
  const maxInMemory = opts.maxInMemory ?? 10_000;
  // Connecting gets the system request timeout too (an Agent has one connect timeout for all).
  // Connections per origin are not capped here: each target's concurrency caps its own, so a
  // request never waits inside undici (where its timeout would run) and an endpoint that hangs
  // holds only its target's connections, never the ones of its neighbours on the same origin.
  // undici is loaded with the first delivery: commands that never send do not pay for it.
  // With webhooks deny_private_networks, tries go through an Agent of their own whose every
  // connection is checked: one pooled while the setting was off is never reused once it is on.
  const agents = new Map<boolean, Promise<Agent>>();
  /** the Agents once loaded: a try then starts without waiting for a promise */
  const loadedAgents = new Map<boolean, Agent>();
  const agentOf = (publicOnlyPeers: boolean): Promise<Agent> => {
    let agent = agents.get(publicOnlyPeers);
    if (!agent) {
      agent = import('undici').then(({ Agent, buildConnector }) => {
        const connect = buildConnector({ timeout: deliverySettings(core).requestTimeoutMs });
        const loaded = new Agent({ keepAliveTimeout: 30_000, connect: publicOnlyPeers ? publicOnly(connect) : notingPeers(connect) });
        // Stryker disable next-line CallExpression: without it each try awaits the promise of the same Agent
        loadedAgents.set(publicOnlyPeers, loaded);
        return loaded;
      });
      agents.set(publicOnlyPeers, agent);
    }
    return agent;
  };

  // Settings per account, as they are now (a configuration change applies to the next try).
  const settingsOf = (accountId = ''): DeliverySettings => currentDeliverySettings(core, accountId);
  const targets = new Targets(core, () => settingsOf());

  /** rows in memory: queued per target or in flight, until their results are recorded */
  let held = 0;
  /** rows reserved by enqueues of this process whose transaction has not ended */
  let reserved = 0;
  let inFlight = 0;
  let finished: FinishedTry[] = [];
  let breakerChanges: BreakerChange[] = [];
  /** spilled targets to top up from disk with the next results */
  const toRefill = new Set<string>();
  let stopping = false;
  let claimQueued = false;
  let claimTurn = 0;
  /** memory was full when rows were due: claim again once results free some */
  let starved = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let dueTimer: LongTimeout | undefined;
  let dueAt = Infinity;
  let drained: (() => void) | undefined;

  // another process holding the file a moment is no news, a full disk is the storage episode's:
  // what failed is tried again shortly
  const log = (what: string, err: unknown) => reportDbError(core.db, `delivery ${what}`, err);

  function scheduleClaim(): void {
    if (claimQueued || stopping) return;
    claimQueued = true;
    setImmediate(() => {
      claimQueued = false;
      // a claim queued just before the sender stopped: the file may be closed by now
      if (stopping) return;
      try {
        claim();
      } catch (err) {
        log('claim failed', err);
      }
    });
  }

  /**
   * Claims due rows of every target that has room in its window (retries, other processes' rows):
   * a batch a turn, the next turn going on while more wait, so that requests are answered in
   * between.
   */
  function claim(): void {
    starved = false;
    // while the file takes no writes, rows stay where they are (claimed again once it does)
    if (stopping || storageFaulty(core.db)) return;
    const room = maxInMemory - held;
    if (room <= 0) {
      starved = true;
      return;
    }
    const limit = Math.min(room, CLAIM_BATCH);
    // a full target may have rows waiting: it is topped up from disk as it drains (see deliver)
    for (const key of targets.saturated()) targets.get(key)!.spilled = true;
    // each target with room takes its oldest due rows, as many as its window has room for; the
    // target asked first moves on a turn, so that a full batch of one does not keep the others waiting
    const now = Date.now();
    const ids: number[] = [];
    const keys = pendingTargets(core);
    const first = claimTurn++ % Math.max(1, keys.length);
    for (const key of [...keys.slice(first), ...keys.slice(0, first)]) {
      const free = targets.windowOf(key) - targets.load(key);
      // Stryker disable next-line ArithmeticOperator: a turn that claims past its batch holds the loop longer; the rows are the same
      const want = Math.min(free, limit - ids.length);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: asking a full target for no rows gets none
      if (want <= 0) continue;
      const due = dueIds(core, key, now, want);
      for (const id of due) ids.push(id);
      // its window fills up with these: what else waits of it comes as it drains (see deliver)
      if (due.length === free) targets.of(key, null).spilled = true;
      // Stryker disable next-line ConditionalExpression: past a full batch every later target is asked for none
      if (ids.length === limit) break;
    }
    if (ids.length > 0) hold(claimRows(core, claimant, ids));
    if (ids.length === limit) scheduleClaim();
    else scheduleNextDue();
  }

  /** Tops up a spilled target from its rows on disk; `freed` rows are about to leave memory. */
  function refill(key: string, freed: number): DeliveryRow[] {
    const want = Math.min(targets.windowOf(key) - targets.load(key), maxInMemory - held + freed, REFILL_BATCH);
    if (want <= 0 || stopping) return [];
    const { rows, drained: empty } = claimTargetRows(core, claimant, key, want);
    // nothing of it left on disk: its new rows may come inline again
    if (empty) {
      const t = targets.get(key);
      if (t) t.spilled = false;
    }
    return rows;
  }

  /** Queues claimed rows per target and starts what each target's concurrency allows. */
  function hold(rows: DeliveryRow[]): void {
    rows.sort((a, b) => a.due_at - b.due_at || a.id - b.id);
    for (const row of rows) {
      targets.hold(targets.of(row.target, row.source_id), row);
      held++;
    }
    for (const key of new Set(rows.map((r) => r.target))) pump(key);
  }

  /**
   * Rows enqueued in this process come here already claimed, in the transaction that writes them,
   * while their target has room in its window (and no older rows of it wait on disk): no claim
   * query, no second transaction. A row it has no room for is written pending and claimed in turn.
   */
  const inline: InlineClaimer = {
    reserve(key) {
      // Stryker disable next-line ConditionalExpression: a row reserved while the sender stops is given back with the others as it lets go
      if (stopping) return undefined;
      if (held + reserved >= maxInMemory) {
        // claimed from disk once memory frees up (see flush)
        starved = true;
        return undefined;
      }
      const t = targets.of(key, null);
      if (t.spilled) return undefined;
      if (t.active + t.queue.length + t.reserved >= targets.windowOf(key)) {
        t.spilled = true;
        return undefined;
      }
      t.reserved++;
      reserved++;
      return { owner: claimant.owner, leaseUntil: Date.now() + claimant.leaseMs };
    },
    accept(row) {
      const t = targets.of(row.target, row.source_id);
      t.sourceId ??= row.source_id;
      t.reserved--;
      reserved--;
      targets.hold(t, row);
      held++;
      pump(row.target);
    },
    release(key) {
      const t = targets.get(key);
      if (t) t.reserved--;
      reserved--;
    },
  };

  /**
   * Starts tries of a target's queued rows while its concurrency (and its pace) allows. While the
   * file takes no writes none starts: a try whose result cannot be recorded waits in memory, and
   * one recorded nowhere would be sent again by the next server if this one stopped.
   */
  function pump(key: string): void {
    const t = targets.get(key);
    if (!t || storageFaulty(core.db)) return;
    const conc = targets.concurrencyOf(t);
    while (!stopping && t.active < conc && t.queue.length > 0) {
      const wait = targets.paceWait(t, Date.now());
      if (wait > 0) {
        // a paced target waits on its own timer; the others are not held up
        t.paceTimer ??= setLongTimeout(
          () => {
            t.paceTimer = undefined;
            pump(key);
          },
          wait,
          { unref: true },
        );
        return;
      }
      const row = t.queue.shift()!;
      // Checked again just before its try: its hook may have been deleted or turned off meanwhile.
      if (!stillSendable(row)) continue;
      targets.paced(t, row, Date.now());
      t.active++;
      inFlight++;
      void deliver(row, t, key);
    }
  }

  /**
   * Whether a row may still be sent; one its kind no longer wants is cancelled. Kinds answer from
   * memory (see DeliveryKind.sendable): the check costs no query a row.
   */
  function stillSendable(row: DeliveryRow): boolean {
    try {
      if (stillWanted(core, row)) return true;
      cancel(core, row, Date.now());
    } catch (err) {
      log('check failed', err);
      return true;
    }
    held--;
    return false;
  }

  /** One try of a row; its result waits in `finished` for the next flush. */
  async function deliver(row: DeliveryRow, t: Target, key: string): Promise<void> {
    let settings: DeliverySettings;
    let outcome: TryOutcome;
    try {
      settings = settingsOf(row.account_id);
      const publicOnlyPeers = denyPrivateNetworks(core);
      outcome = await sendTry(loadedAgents.get(publicOnlyPeers) ?? (await agentOf(publicOnlyPeers)), row, settings.requestTimeoutMs);
    } catch (err) {
      settings = settingsOf();
      outcome = { ok: false, url: row.url, reason: 'connection error', clientError: String(err), latencyMs: 0, reqHeaders: {}, reqBody: '' };
    }
    inFlight--;
    const change = targets.finished(t, key, outcome.ok, outcome.latencyMs);
    if (change) breakerChanges.push(change);
    finished.push({ row, outcome, at: Date.now(), settings });
    scheduleFlush();
    if (inFlight === 0) drained?.();
    pump(key);
    if (t.spilled && targets.load(key) < targets.windowOf(key) / 2) toRefill.add(key);
  }

  /**
   * Records finished tries (and tops up spilled targets) in the group commit of the next turn,
   * the one the API's writes of that turn share. One flush at a time; what finishes meanwhile
   * waits for the next. Resolves once the results are recorded (or given back to try again).
   */
  function flush(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    if (flushing) return flushing;
    if (finished.length === 0) return Promise.resolve();
    const batch = finished;
    finished = [];
    const changes = breakerChanges;
    breakerChanges = [];
    const keys = [...toRefill];
    toRefill.clear();
    let failed = false;
    const recorded = groupCommit(core.db, () => {
      recordTries(core, batch, changes);
      return keys.flatMap((k) => refill(k, batch.length));
    });
    flushing = recorded
      .then(
        (claimed) => {
          held -= batch.length;
          hold(claimed);
          if (starved) scheduleClaim();
          scheduleNextDue();
        },
        (err: unknown) => {
          failed = true;
          log('recording failed, will retry', err);
          finished = batch.concat(finished);
          breakerChanges = changes.concat(breakerChanges);
          // a file that takes no writes is flushed once it does again (see onStorageBack below)
          if (!stopping && !storageFaulty(core.db)) flushTimer ??= setTimeout(flush, 200);
        },
      )
      .finally(() => {
        flushing = undefined;
        if (!failed) scheduleFlush();
      });
    return flushing;
  }

  /**
   * Asks for a flush of the finished tries: at once for a full batch, else within FLUSH_DELAY_MS;
   * none while the file takes no writes (it is flushed when it does again).
   */
  function scheduleFlush(): void {
    if (stopping || finished.length === 0 || storageFaulty(core.db)) return;
    if (finished.length >= FLUSH_BATCH) void flush();
    else flushTimer ??= setTimeout(flush, FLUSH_DELAY_MS);
  }

  /** Wakes the claim when the next retry falls due. */
  function scheduleNextDue(): void {
    const m = nextDueAt(core);
    const now = Date.now();
    if (m === null || m <= now || m >= dueAt) return;
    dueTimer?.clear();
    dueAt = m;
    // a retry may wait longer than one timer can (retry_max_delay_ms up to a day; rows written before bounds)
    dueTimer = setLongTimeout(() => {
      dueTimer = undefined;
      dueAt = Infinity;
      scheduleClaim();
    }, m - now);
  }

  function heartbeat(): void {
    // what a target's tries showed is kept while it is trusted (see Targets.windowOf)
    targets.forgetIdle(Date.now() - 60_000);
    try {
      // rows held are the rows this sender has marked sending: none, no lease to renew
      if (held > 0) renewLease(core, claimant.owner, claimant.leaseMs);
      withoutWaiting(core.db, () => recoverOrphans(core, claimant.owner));
    } catch (err) {
      log('heartbeat failed', err);
    }
  }

  function prune(): void {
    try {
      withoutWaiting(core.db, () => pruneAttempts(core, deliverySettings(core).attemptsRetentionSeconds));
    } catch (err) {
      log('pruning failed', err);
    }
  }

  try {
    recoverOrphans(core, claimant.owner);
  } catch (err) {
    // a disk that is full at start: the recovery timer tries again
    log('recovery failed', err);
  }
  prune();
  const unsubscribe = onEnqueue(core, scheduleClaim);
  // what waits in memory while the file takes no writes, and what goes on once it does again
  const unhold = holdsWhileFaulty(core.db, 'deliveries', () => held);
  const unback = onStorageBack(core.db, () => {
    for (const key of targets.queued()) pump(key);
    void flush();
    scheduleClaim();
  });
  const detach = attachClaimer(core, inline);
  // falling behind a stream of events: the API's commits shrink so that answers are read between them
  const unlimit = limitUnitsPerCommit(core.db, () => (targets.fallingBehind() ? UNITS_PER_COMMIT_BEHIND : Infinity));
  const pollTimer = setInterval(scheduleClaim, pollMs);
  let seenVersion = -1;
  const watchTimer = setInterval(() => {
    const v = (stmt(core.db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== seenVersion) {
      seenVersion = v;
      scheduleClaim();
    }
  }, opts.watchIntervalMs ?? 20);
  const beatTimer = setInterval(heartbeat, Math.max(50, Math.floor(claimant.leaseMs / 3)));
  // Another server on the file that dies is noticed within a second (see lease.ts), not a lease.
  const recoveryTimer = setInterval(() => {
    try {
      if ((withoutWaiting(core.db, () => recoverOrphans(core, claimant.owner)) ?? 0) > 0) scheduleClaim();
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
      unhold();
      unback();
      detach();
      unlimit();
      clearInterval(pollTimer);
      clearInterval(watchTimer);
      clearInterval(beatTimer);
      clearInterval(recoveryTimer);
      clearInterval(pruneTimer);
      targets.stopPacing();
      dueTimer?.clear();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      // what is still unrecorded is recorded now (a few tries if the file is busy)
      for (let i = 0; i < 5 && (flushing || finished.length > 0); i++) await flush();
      try {
        releaseOwner(core, claimant.owner);
      } catch (err) {
        // rows not given back (a full disk) are taken back by the next sender on the file
        log('giving rows back failed', err);
      }
      for (const agent of agents.values()) await (await agent).close();
    },
  };
}
