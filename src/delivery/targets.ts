import type { Core } from '../core-type.js';
import { breakerFailures } from './breakers.js';
import type { DeliveryRow } from './outbox.js';
import type { DeliverySettings } from './settings.js';

/** Rows held in memory for a target that answers quickly, in multiples of its concurrency. */
const FAST_WINDOW_FACTOR = 256;
/** A target answering within this (on average) is a quick one. */
const FAST_LATENCY_MS = 100;
/** How long what a target's tries showed is trusted without a new one. */
const KNOWN_FOR_MS = 30_000;

/** A claimed row and when it was claimed. */
export interface HeldRow extends DeliveryRow {
  heldAt: number;
}

/** One delivery target (a source's endpoint) as the sender holds it. */
export interface Target {
  /** tries in flight */
  active: number;
  /** claimed rows waiting for a free slot, oldest first */
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
      t = { active: 0, queue: [], lastDoneAt: 0, failures: breakerFailures(this.core, key), latencyMs: 0, sourceId, reserved: 0, spilled: false };
      this.byKey.set(key, t);
    }
    return t;
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
    const fast = t !== undefined && t.lastDoneAt > Date.now() - KNOWN_FOR_MS && t.failures === 0 && t.latencyMs < FAST_LATENCY_MS;
    return fast ? conc * FAST_WINDOW_FACTOR : conc * 2;
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
}
