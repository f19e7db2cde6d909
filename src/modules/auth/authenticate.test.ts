import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { initDatabase } from '../accounts/bootstrap.js';
import { getAccount, updateAccount } from '../accounts/service.js';
import { tempDir } from '../../../test/helpers/server.js';
import { authenticate, issueToken, METHOD_API_AUTH, revokeToken } from './service.js';

// What a token stands for is built once per cached token row and account (see authOfRow): these
// pin that a change of either is answered at once.
describe('what a token stands for, request after request', () => {
  const tmp = tempDir();
  const core = openCore(join(tmp.dir, 'auth.db'));
  const master = initDatabase(core, { account: 'Lab', username: 'admin', password: 'pw' });
  afterAll(() => {
    closeCore(core);
    tmp.cleanup();
  });
  const token = issueToken(core, { account: getAccount(core, master.account_id), method: METHOD_API_AUTH });

  it('is one frozen answer while nothing changes', () => {
    const first = authenticate(core, token);
    // the token as a client sends it: a new string each time
    const again = authenticate(core, `${token} `.trimEnd());
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('follows a change of its account at once', () => {
    const before = authenticate(core, token);
    updateAccount(core, master.account_id, { name: 'Lab renamed' }, 'merge');
    const after = authenticate(core, token);
    expect(after).not.toBe(before);
    expect(after.account.name).toBe('Lab renamed');
  });

  it('is refused at once once the token is revoked', () => {
    authenticate(core, token);
    expect(revokeToken(core, token)).toBe(true);
    expect(() => authenticate(core, token)).toThrow(/invalid/);
  });
});
