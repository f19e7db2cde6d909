import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { tempDir } from '../../../test/helpers/server.js';
import { initDatabase } from '../accounts/bootstrap.js';
import { createAccount } from '../accounts/service.js';
import { createUser } from '../users/service.js';
import { requestRecovery } from './recovery.js';
import { apiAuth } from './service.js';

/**
 * Every way in counts its failures against the login throttle: past the budget (one failure here)
 * a key's next try waits a second, doubled with each failure since. A failure shows in the wait of
 * the try after the next one (a try's spacing is set when it starts), so each case is four tries:
 * [0, 0, 1000, 3000] ms when all count, [0, 0, 0, 0] when none does.
 */
describe('every way in counts against the login throttle', () => {
  const tmp = tempDir();
  const core = openCore(join(tmp.dir, 'throttle.db'));
  const master = initDatabase(core, { account: 'Lab', username: 'admin', password: 'pw' });
  const T0 = Date.parse('2026-03-01T00:00:00Z');
  let locked: { id: string; apiKey: string };

  beforeAll(() => {
    core.config.setValue('crossbar.auth', 'login_max_failures', 1);
    const a = createAccount(core, { name: 'Locked Co' }, { parentId: master.account_id });
    locked = { id: a.id, apiKey: a.apiKey };
    createUser(core, a.id, { username: 'off', password: 'pw-off-1', first_name: 'Off', last_name: 'Co', enabled: false });
    core.config.setForAccount(a.id, 'crossbar.auth', { auth_modules: { cb_api_auth: { enabled: false } } });
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());
  afterAll(() => {
    closeCore(core);
    tmp.cleanup();
  });

  /** When (ms after the first) each try started its work, one after the other; each must fail with `status`. */
  async function starts(status: number, tryOnce: () => Promise<unknown>): Promise<number[]> {
    const at: number[] = [];
    for (let i = 0; i < 4; i++) {
      const outcome = tryOnce().then(
        () => ({ status: 'answered' }),
        (e: { status?: number }) => e,
      );
      await vi.runAllTimersAsync();
      expect((await outcome).status).toBe(status);
      at.push(Date.now() - T0);
    }
    return at;
  }

  it('an API key no account has', async () => {
    expect(await starts(401, () => apiAuth(core, { api_key: 'f'.repeat(64) }, { address: '192.0.2.1' }))).toEqual([0, 0, 1000, 3000]);
  });

  it("the right API key of an account whose settings disable API-key logins", async () => {
    expect(await starts(401, () => apiAuth(core, { api_key: locked.apiKey }, { address: '192.0.2.2' }))).toEqual([0, 0, 1000, 3000]);
  });

  it('a reset link asked for a disabled user', async () => {
    const ask = () => requestRecovery(core, { account_name: 'Locked Co', username: 'off', ui_url: 'https://ui.example.com/' }, { address: '192.0.2.3' });
    expect(await starts(400, ask)).toEqual([0, 0, 1000, 3000]);
  });
});
