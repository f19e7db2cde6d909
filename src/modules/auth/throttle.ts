import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';

/** Default login throttle (`crossbar.auth`): failures allowed per key within the window. */
export const DEFAULT_LOGIN_MAX_FAILURES = 10;
export const DEFAULT_LOGIN_FAILURE_WINDOW_S = 300;

/** Keys remembered at most: past it the oldest go first, so guessing from many addresses cannot grow memory. */
const MAX_KEYS = 10_000;

interface Entry {
  /** unix ms of the failures still within the window, oldest first */
  failures: number[];
}

/**
 * Slows down guessing: after `login_max_failures` failed logins within `login_failure_window_s`
 * for one key (a source address, an account name), logins for that key answer 429 with
 * `Retry-After` until the oldest failure leaves the window. Kept in the server's memory.
 */
export class LoginThrottle {
  private entries = new Map<string, Entry>();

  constructor(private readonly core: Core) {}

  private settings(): { max: number; windowMs: number } {
    const max = Number(this.core.config.value('crossbar.auth', 'login_max_failures', DEFAULT_LOGIN_MAX_FAILURES));
    const win = Number(this.core.config.value('crossbar.auth', 'login_failure_window_s', DEFAULT_LOGIN_FAILURE_WINDOW_S));
    return {
      max: Number.isFinite(max) && max > 0 ? max : DEFAULT_LOGIN_MAX_FAILURES,
      windowMs: (Number.isFinite(win) && win > 0 ? win : DEFAULT_LOGIN_FAILURE_WINDOW_S) * 1000,
    };
  }

  /** Throws the 429 when any key has used up its failures. */
  check(keys: string[]): void {
    if (keys.length === 0) return;
    const { max, windowMs } = this.settings();
    const now = Date.now();
    let wait = 0;
    for (const key of keys) {
      const e = this.entries.get(key);
      if (!e) continue;
      while (e.failures.length > 0 && e.failures[0] <= now - windowMs) e.failures.shift();
      if (e.failures.length === 0) this.entries.delete(key);
      else if (e.failures.length >= max) wait = Math.max(wait, e.failures[e.failures.length - max] + windowMs - now);
    }
    if (wait > 0) throw errors.tooManyLogins(Math.max(1, Math.ceil(wait / 1000)));
  }

  /** Counts a failed login against every key. */
  failed(keys: string[]): void {
    const { max } = this.settings();
    const now = Date.now();
    for (const key of keys) {
      let e = this.entries.get(key);
      if (!e) {
        if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
        e = { failures: [] };
        this.entries.set(key, e);
      }
      e.failures.push(now);
      if (e.failures.length > max) e.failures.splice(0, e.failures.length - max);
    }
  }

  /** A good login clears the keys' failures. */
  succeeded(keys: string[]): void {
    for (const key of keys) this.entries.delete(key);
  }
}

const throttles = new WeakMap<Core, LoginThrottle>();

/** The core's login throttle. */
export function loginThrottle(core: Core): LoginThrottle {
  let t = throttles.get(core);
  if (!t) throttles.set(core, (t = new LoginThrottle(core)));
  return t;
}
