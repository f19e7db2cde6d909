/**
 * The longest delay a Node timer takes (2^31 − 1 ms, about 24.8 days): a longer one is not waited
 * for but fires after 1 ms, with a TimeoutOverflowWarning — a timer re-armed from its own callback
 * then spins the event loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer of any length (see setLongTimeout). */
export interface LongTimeout {
  clear(): void;
}

/**
 * Runs `fn` once `ms` have passed, however long that is: a delay beyond what one Node timer takes
 * is waited for in steps of MAX_TIMER_MS. A delay that is not a number, or below 0, is 0; Infinity
 * never fires. `unref`: the timer does not keep the process alive.
 */
export function setLongTimeout(fn: () => void, ms: number, opts: { unref?: boolean } = {}): LongTimeout {
  const delay = ms > 0 ? ms : 0;
  const deadline = Date.now() + delay;
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    const step = Math.min(left, MAX_TIMER_MS);
    timer = setTimeout(step < left ? () => arm(deadline - Date.now()) : fn, step);
    if (opts.unref) timer.unref();
  };
  arm(delay);
  return { clear: () => clearTimeout(timer) };
}

/** Resolves once the event loop has run what waits (other requests, timers). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
