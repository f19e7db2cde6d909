import type { Core } from '../core-type.js';
import { breakerFailures } from './breakers.js';
import type { DeliveryRow } from './outbox.js';
import { MIN_RATE_PER_S, type DeliverySettings } from './settings.js';
import type { LongTimeout } from '../util/timers.js';

/** Rows held in memory for a target that answers quickly, in multiples of its concurrency. */
const FAST_WINDOW_FACTOR = 256;
/** A target answering within this (on average) is a quick one. */
const FAST_LATENCY_MS = 100;
/** How long what a target's tries showed is trusted without a new one. */
const KNOWN_FOR_MS = 30_000;
/** A paced target holds in memory about this many seconds of its rate (the rest waits on disk). */
const PACED_WINDOW_S = 2;

/** One delivery target (a source's endpoint) as the sender holds it. */
export interface Target {
  /** tries in flight */
  active: number;
  /** claimed rows waiting for a free slot, oldest first */
  queue: DeliveryRow[];
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
  /** rows of it may wait on disk (its window was full when they came): new ones queue behind them there */
  spilled: boolean;
  /** tries a second its rows are paced to (the newest held row's `rate_per_s`), or null */
  ratePerS: number | null;
  /** unix ms before which a paced target starts no try */
  nextStartAt: number;
  /** wakes a paced target when its next try may start */
  paceTimer?: LongTimeout;
}

/** A breaker that changed state, recorded with the next results. */
export interface BreakerChange {
  target: string;
  sourceId: string | null;
  state: 'open' | 'closed';
  failures: number;
  at: number;
}

/**
 * The sender's targets and the policy on them: how many rows each may hold in memory (its
 * window), how many tries it may have in flight, and its circuit breaker. Isolation is by
 * target, never by origin: an endpoint that hangs fills its own window, not its neighbours'.
 */
export class Targets {
  private readonly byKey = new Map<string, Target>();

  constructor(
    private readonly core: Core,
    /** the settings in force (read again when they may have changed) */
    private readonly settings: () => DeliverySettings,
  ) {}

  get(key: string): Target | undefined {
    return this.byKey.get(key);
  }

  /** The target, known or new (a new one starts from the breaker state its last sender left). */
  of(key: string, sourceId: string | null): Target {
    let t = this.byKey.get(key);
    if (!t) {
      t = {
        active: 0,
        queue: [],
        lastDoneAt: 0,
        failures: breakerFailures(this.core, key),
        latencyMs: 0,
        sourceId,
        reserved: 0,
        spilled: false,
        ratePerS: null,
        nextStartAt: 0,
      };
      this.byKey.set(key, t);
    }
    return t;
  }

  /** Queues a claimed row behind its target (whose pace follows its newest row). */
  hold(t: Target, row: DeliveryRow): void {
    t.queue.push(row);
    t.ratePerS = row.rate_per_s;
  }

  /**
   * Milliseconds before a try of a paced target may start (0: now). Tries start one interval
   * (1 / rate) apart; a target that fell behind by less than an interval keeps its cadence, one
   * idle for longer starts afresh (no burst to make up for the quiet time).
   */
  paceWait(t: Target, now: number): number {
    return t.queue.length > 0 && t.queue[0].rate_per_s ? Math.max(0, t.nextStartAt - now) : 0;
  }

  /** A try of a target started now (after `paceWait` said it may): its next slot. */
  paced(t: Target, row: DeliveryRow, now: number): void {
    if (!row.rate_per_s) return;
    // rows written before rates were bounded may ask for less than the slowest pace
    const interval = 1000 / Math.max(row.rate_per_s, MIN_RATE_PER_S);
    t.nextStartAt = now - t.nextStartAt < interval ? t.nextStartAt + interval : now + interval;
  }

  /** Rows of a target in memory: in flight or queued. */
  load(key: string): number {
    const t = this.byKey.get(key);
    return t ? t.active + t.queue.length : 0;
  }

  /**
   * Rows of one target held in memory at most: many while it is known to answer quickly (so a
   * fast target never waits for the next claim, even after a pause), a couple of rounds of its
   * concurrency otherwise — a new target, one that fails, or a slow one, whose backlog waits on
   * disk and leaves the memory to the others.
   */
  windowOf(key: string): number {
    const t = this.byKey.get(key);
    const conc = this.concurrencyOf(t);
    const window = t !== undefined && this.quick(t) ? conc * FAST_WINDOW_FACTOR : conc * 2;
    // a paced target sends no faster for holding more: its backlog waits on disk
    return t?.ratePerS ? Math.min(window, Math.max(2, Math.ceil(t.ratePerS * PACED_WINDOW_S))) : window;
  }

  /**
   * Whether a target that answers quickly has half of what it may hold in memory queued: the
   * sender is falling behind the events that make its deliveries (the endpoint is not the
   * reason), and that target's next rows would wait on disk. The backlog of a slow, failing or
   * paced target waits on disk by design: it says nothing of the sender.
   */
  fallingBehind(): boolean {
    for (const [key, t] of this.byKey) {
      if (t.queue.length * 2 < FAST_WINDOW_FACTOR || t.ratePerS || !this.quick(t)) continue;
      if (t.queue.length * 2 >= this.windowOf(key)) return true;
    }
    return false;
  }

  /** A target known to answer quickly: its last tries, within KNOWN_FOR_MS, failed none and took FAST_LATENCY_MS at most on average. */
  private quick(t: Target): boolean {
    return t.lastDoneAt > Date.now() - KNOWN_FOR_MS && t.failures === 0 && t.latencyMs < FAST_LATENCY_MS;
  }

  /** Targets with rows queued in memory. */
  queued(): string[] {
    return [...this.byKey].filter(([, t]) => t.queue.length > 0).map(([key]) => key);
  }

  /** Targets whose window is full: a claim skips their rows. */
  saturated(): string[] {
    return [...this.byKey.keys()].filter((k) => this.load(k) >= this.windowOf(k));
  }

  breakerOpen(t: Target | undefined): boolean {
    return t !== undefined && t.failures >= this.settings().breakerFailureThreshold;
  }

  /**
   * Tries in flight to a target at most: the configured concurrency, or one while its breaker is
   * open — an endpoint that keeps failing is probed one try at a time until it answers again,
   * its other rows waiting (with their retry schedule) and taking no more of the shared capacity.
   */
  concurrencyOf(t: Target | undefined): number {
    return this.breakerOpen(t) ? 1 : this.settings().perTargetConcurrency;
  }

  /** Counts a finished try into its target (latency, breaker); answers the breaker's change of state, if any. */
  finished(t: Target, key: string, ok: boolean, latencyMs: number): BreakerChange | undefined {
    t.active--;
    // the first try's duration starts the average (a slow target is known as slow at once)
    t.latencyMs = t.lastDoneAt === 0 ? latencyMs : t.latencyMs * 0.8 + latencyMs * 0.2;
    t.lastDoneAt = Date.now();
    const wasOpen = this.breakerOpen(t);
    t.failures = ok ? 0 : t.failures + 1;
    const open = this.breakerOpen(t);
    if (open === wasOpen) return undefined;
    return { target: key, sourceId: t.sourceId, state: open ? 'open' : 'closed', failures: t.failures, at: Date.now() };
  }

  /** Forgets targets with nothing in memory and no try since `idleSince`. */
  forgetIdle(idleSince: number): void {
    for (const [key, t] of this.byKey) {
      if (t.active === 0 && t.queue.length === 0 && t.reserved === 0 && t.lastDoneAt < idleSince) this.byKey.delete(key);
    }
  }

  /** Stops the pacing timers (the sender is stopping). */
  stopPacing(): void {
    for (const t of this.byKey.values()) t.paceTimer?.clear();
  }
}
