import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Core } from '../../core-type.js';
import { ApiError } from '../../errors.js';
import { LoginThrottle, type LoginKeys } from './throttle.js';

/** A throttle over `crossbar.auth` settings as given (missing keys: the built-in defaults). */
function throttle(settings: Record<string, unknown> = {}): LoginThrottle {
  const core = { config: { value: (_category: string, key: string, fallback: unknown) => (key in settings ? settings[key] : fallback) } };
  return new LoginThrottle(core as unknown as Core);
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** When (ms after T0) each of `n` failed tries of `login` started, one after the other. */
async function failedTries(t: LoginThrottle, login: LoginKeys, n: number): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const turn = t.turn(login);
    await vi.runAllTimersAsync();
    (await turn).failed();
    starts.push(Date.now() - T0);
  }
  return starts;
}

describe('the login throttle', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  const guesser: LoginKeys = { address: '192.0.2.7', accounts: ['acct-a'] };

  it("past an account's budget, its tries start 1 s apart, doubled each time, up to 10 s", async () => {
    const starts = await failedTries(throttle({ login_max_failures: 2 }), guesser, 9);
    expect(starts).toEqual([0, 0, 0, 1000, 3000, 7000, 15_000, 25_000, 35_000]);
  });

  it('the built-in budget is 10 failures; a setting that is not a positive number falls back to it', async () => {
    for (const settings of [{}, { login_max_failures: 0 }, { login_max_failures: 'many' }, { login_max_failures: '1e999' }]) {
      vi.setSystemTime(T0);
      expect(await failedTries(throttle(settings), guesser, 12)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1000]);
    }
  });

  it('failures older than the window no longer count (login_failure_window_s, else 300 s)', async () => {
    const t = throttle({ login_max_failures: 1, login_failure_window_s: 60 });
    await failedTries(t, guesser, 2);
    vi.setSystemTime(T0 + 60_000);
    expect(await failedTries(t, guesser, 2)).toEqual([60_000, 60_000]);
    vi.setSystemTime(T0);
    const builtIn = throttle({ login_max_failures: 1, login_failure_window_s: -5 });
    await failedTries(builtIn, guesser, 2);
    vi.setSystemTime(T0 + 299_000);
    expect(await failedTries(builtIn, guesser, 2)).toEqual([299_000, 301_000]);
  });

  it('an address spraying many accounts is slowed past ten times the budget, by 1 s at most', async () => {
    const t = throttle({ login_max_failures: 1 });
    const starts: number[] = [];
    for (let i = 0; i < 14; i++) {
      starts.push(...(await failedTries(t, { address: '192.0.2.9', accounts: [`acct-${i}`] }, 1)));
    }
    expect(starts).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1000, 2000, 3000]);
  });

  it('a right login clears its account for that address only; other addresses never wait', async () => {
    const t = throttle({ login_max_failures: 1 });
    await failedTries(t, guesser, 3);
    const elsewhere = t.turn({ address: '198.51.100.1', accounts: ['acct-a'] });
    expect(vi.getTimerCount()).toBe(0);
    (await elsewhere).succeeded('acct-a');
    const right = t.turn(guesser);
    await vi.runAllTimersAsync();
    (await right).succeeded('acct-a');
    const afterRight = Date.now() - T0;
    expect(await failedTries(t, guesser, 1)).toEqual([afterRight]);
  });

  it('a try that would queue behind four others is refused at once with 429 and Retry-After', async () => {
    const t = throttle({ login_max_failures: 1 });
    await failedTries(t, guesser, 1);
    const waiting = Array.from({ length: 5 }, () => t.turn(guesser));
    const err = (await t.turn(guesser).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ 'Retry-After': '5' });
    expect(err.data).toMatchObject({ cause: 'too many failed logins', retry_after: 5 });
    await vi.runAllTimersAsync();
    expect(await Promise.all(waiting)).toHaveLength(5);
  });

  it('a try whose turn is more than 30 s away is refused, though fewer than four wait', async () => {
    const t = throttle({ login_max_failures: 1 });
    expect(await failedTries(t, guesser, 6)).toEqual([0, 0, 1000, 3000, 7000, 15_000]);
    // 10 s apart from now on: turns at 25 s, 35 s and 45 s are given, one at 55 s is not
    const given = [t.turn(guesser), t.turn(guesser), t.turn(guesser)];
    const err = (await t.turn(guesser).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(429);
    expect(err.headers['Retry-After']).toBe('40');
    await vi.runAllTimersAsync();
    expect(await Promise.all(given)).toHaveLength(3);
    expect(Date.now() - T0).toBe(45_000);
  });

  it('a window that is not a finite number is the built-in 300 s; an account named twice in one login counts once', async () => {
    const t = throttle({ login_max_failures: 2, login_failure_window_s: '1e999' });
    const twice: LoginKeys = { address: '192.0.2.7', accounts: ['acct-a', 'acct-a'] };
    expect(await failedTries(t, twice, 4)).toEqual([0, 0, 0, 1000]);
    vi.setSystemTime(T0 + 300_000);
    // the three failures at 0 have left the window, the one at 1 s has not
    expect(await failedTries(t, twice, 3)).toEqual([300_000, 300_000, 301_000]);
  });

  it("what it remembers is bounded: past 10,000 keys the oldest go first, a guesser's count among them", async () => {
    const t = throttle({ login_max_failures: 1 });
    await failedTries(t, guesser, 2);
    // each address adds two keys (the address, the address at its account): with the guesser's
    // two, 10,000 keys, and the guesser still waits its turn
    const others = async (from: number, to: number) => {
      for (let i = from; i < to; i++) (await t.turn({ address: `198.51.${i >> 8}.${i & 255}`, accounts: [`acct-${i}`] })).failed();
    };
    await others(0, 4999);
    const waits = t.turn(guesser);
    expect(vi.getTimerCount()).toBe(1);
    await vi.runAllTimersAsync();
    (await waits).failed();
    // one more address: the guesser's two keys, the oldest, are forgotten, and its next try starts at once
    await others(4999, 5000);
    const atOnce = t.turn(guesser);
    expect(vi.getTimerCount()).toBe(0);
    await atOnce;
  });

  it("a login naming no account (an API key's) counts against its address's own key, with an account's budget; a right one clears it", async () => {
    const t = throttle({ login_max_failures: 2 });
    const byKey: LoginKeys = { address: '192.0.2.8', accounts: [] };
    expect(await failedTries(t, byKey, 4)).toEqual([0, 0, 0, 1000]);
    const right = t.turn(byKey);
    await vi.runAllTimersAsync();
    (await right).succeeded();
    const after = Date.now() - T0;
    expect(await failedTries(t, byKey, 2)).toEqual([after, after]);
  });

  it("while a guesser's try waits its turn, the same address's try at another account starts at once, never refused for the queue", async () => {
    const t = throttle({ login_max_failures: 1 });
    await failedTries(t, guesser, 1);
    const queued = Array.from({ length: 5 }, () => t.turn(guesser));
    expect(vi.getTimerCount()).toBe(4);
    const other = t.turn({ address: guesser.address, accounts: ['acct-b'] });
    expect(vi.getTimerCount()).toBe(4);
    (await other).failed();
    await vi.runAllTimersAsync();
    expect(await Promise.all(queued)).toHaveLength(5);
  });

  it('a try waits out the turn its key was given, though the failures that set it have left the window', async () => {
    const t = throttle({ login_max_failures: 1, login_failure_window_s: 1 });
    expect(await failedTries(t, guesser, 3)).toEqual([0, 0, 1000]);
    // the last failure (at 1 s) has left the window at 2 s; the turn it was given is at 3 s
    vi.setSystemTime(T0 + 2000);
    expect(await failedTries(t, guesser, 1)).toEqual([3000]);
  });
});

