import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';

/** Default login throttle (`crossbar.auth`): failures allowed per address and account within the window. */
export const DEFAULT_LOGIN_MAX_FAILURES = 10;
export const DEFAULT_LOGIN_FAILURE_WINDOW_S = 300;

/** Keys remembered at most: past it the oldest go first, so guessing from many addresses cannot grow memory. */
const MAX_KEYS = 10_000;
/** An address's budget over all accounts, in multiples of the per-account one (spraying many accounts from one place). */
const ADDRESS_FACTOR = 10;
/** Past its budget, a key's tries start this far apart, doubled with each further failure, up to the key's cap. */
const FIRST_SPACING_MS = 1000;
const ACCOUNT_SPACING_CAP_MS = 10_000;
const ADDRESS_SPACING_CAP_MS = 1000;
/**
 * A try that would wait longer than this for its turn, or behind this many others of its key, is
 * answered 429 with `Retry-After` instead of held (one client does not send logins side by side).
 */
const MAX_WAIT_MS = 30_000;
const MAX_WAITING = 4;

interface Entry {
  /** unix ms of the failures still within the window, oldest first */
  failures: number[];
  /** unix ms before which the key's next try does not start */
  next: number;
  /** tries of the key waiting for their turn */
  waiting: number;
}

/** The keys a login counts against: its address, and its address with the account(s) the login names. */
export interface LoginKeys {
  address: string;
  /** ids of the accounts the login's name or realm resolve to (however it is spelled), or none */
  accounts: string[];
}

/** A login that waited its turn: `failed` or `succeeded` (into which account, if it named any) says how it went. */
export interface LoginTurn {
  failed(): void;
  succeeded(accountId?: string): void;
}

/** The account part of the key of a login that names none (an API key's). */
const NO_ACCOUNT = '-';

/** The key of an address's tries at one account. */
function accountKey(address: string, accountId: string): string {
  return `acct ${address} ${accountId}`;
}

/**
 * Slows down guessing without locking anyone out. Failed logins count per address and per
 * (address, account the login names): past `login_max_failures` within `login_failure_window_s`
 * (an address: ten times that, over all accounts), the key's tries wait their turn, one at a
 * time, further apart with each failure (up to 10 s for an account, 1 s for an address). Right
 * credentials from another address never wait; from the same one they pass once their turn comes
 * (a good login clears its account's count). A try whose turn is over 30 s away, or that would
 * queue behind four others, is answered 429 with `Retry-After`. Kept in the server's memory.
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

  /**
   * The keys of a login, each with its budget and its spacing cap: the address's, and one for each
   * account the login names with the address (one for none), so that naming a second account
   * beside the target (its realm, its number) adds a key and never replaces the target's.
   */
  private keysOf(login: LoginKeys, max: number): { key: string; budget: number; capMs: number }[] {
    const accounts = login.accounts.length > 0 ? [...new Set(login.accounts)] : [NO_ACCOUNT];
    return [
      { key: `addr ${login.address}`, budget: max * ADDRESS_FACTOR, capMs: ADDRESS_SPACING_CAP_MS },
      ...accounts.map((id) => ({ key: accountKey(login.address, id), budget: max, capMs: ACCOUNT_SPACING_CAP_MS })),
    ];
  }

  /**
   * Waits for the login's turn (at once for keys within their budget); throws the 429 when the
   * turn is too far away. Answers how to report the outcome.
   */
  async turn(login: LoginKeys): Promise<LoginTurn> {
    const { max, windowMs } = this.settings();
    const now = Date.now();
    const keys = this.keysOf(login, max);
    let wait = 0;
    let queued = 0;
    const spacing: number[] = [];
    for (const k of keys) {
      const e = this.live(k.key, now, windowMs);
      const over = (e?.failures.length ?? 0) - k.budget;
      spacing.push(over < 0 ? 0 : Math.min(k.capMs, FIRST_SPACING_MS * 2 ** Math.min(over, 30)));
      wait = Math.max(wait, (e?.next ?? 0) - now);
      queued = Math.max(queued, e?.waiting ?? 0);
    }
    if (wait > MAX_WAIT_MS || (wait > 0 && queued >= MAX_WAITING)) throw errors.tooManyLogins(Math.ceil(wait / 1000));
    const start = now + wait;
    keys.forEach((k, i) => {
      if (spacing[i] > 0) this.entry(k.key).next = Math.max(this.entry(k.key).next, start + spacing[i]);
    });
    if (wait > 0) {
      const entries = keys.map((k) => this.entry(k.key));
      for (const e of entries) e.waiting++;
      await new Promise((resolve) => setTimeout(resolve, wait));
      for (const e of entries) e.waiting--;
    }
    return {
      failed: () => {
        const at = Date.now();
        for (const k of keys) {
          const e = this.entry(k.key);
          e.failures.push(at);
          // what is remembered of a key is bounded: enough to know how far past its budget it is
          // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a bound on memory only: 32 past the budget the spacing is long at its cap, and a negative count splices nothing
          if (e.failures.length > k.budget + 32) e.failures.splice(0, e.failures.length - k.budget - 32);
        }
      },
      // the count of the account logged into only: an address that guesses others' passwords cannot clear its own
      succeeded: (accountId = NO_ACCOUNT) => void this.entries.delete(accountKey(login.address, accountId)),
    };
  }

  /** A key's entry with the failures that left the window dropped; undefined (and forgotten) when nothing is left of it. */
  private live(key: string, now: number, windowMs: number): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: past the last failure, failures[0] is undefined and the comparison false
    while (e.failures.length > 0 && e.failures[0] <= now - windowMs) e.failures.shift();
    // Stryker disable next-line BlockStatement: forgetting a key with nothing left in it changes memory only: such an entry acts as none
    if (e.failures.length === 0 && e.next <= now && e.waiting === 0) {
      // Stryker disable next-line CallExpression: the same
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private entry(key: string): Entry {
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
      e = { failures: [], next: 0, waiting: 0 };
      this.entries.set(key, e);
    }
    return e;
  }
}

const throttles = new WeakMap<Core, LoginThrottle>();

/** The core's login throttle. */
export function loginThrottle(core: Core): LoginThrottle {
  let t = throttles.get(core);
  if (!t) throttles.set(core, (t = new LoginThrottle(core)));
  return t;
}
