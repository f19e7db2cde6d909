import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { initDatabase } from '../accounts/bootstrap.js';
import { createAccount, getAccount, updateAccount } from '../accounts/service.js';
import { runTel } from '../../../test/helpers/cli.js';
import type { EndpointRules } from '../../restrictions/types.js';
import { tempDir } from '../../../test/helpers/server.js';
import { groupCommit } from '../../store/group-commit.js';
import { authenticate, issueToken, METHOD_API_AUTH, METHOD_USER_AUTH, revokeToken, sweepExpiredTokens, tokenCache, tokenInfo, tokenKey } from './service.js';

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

describe("a token's life: idle and absolute lifetimes, to the millisecond", () => {
  const tmp = tempDir();
  const core = openCore(join(tmp.dir, 'life.db'));
  const master = initDatabase(core, { account: 'Lab', username: 'admin', password: 'pw' });
  const account = getAccount(core, master.account_id);
  const T0 = Date.parse('2026-03-01T00:00:00Z');
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  const issue = () => issueToken(core, { account, method: METHOD_API_AUTH });
  const at = (ms: number) => vi.setSystemTime(T0 + ms);
  const works = (token: string) => expect(authenticate(core, token).accountId).toBe(master.account_id);
  const refused = (token: string) => expect(() => authenticate(core, token)).toThrow(/invalid_credentials/);
  /** The token's row once the writes its uses left for the next commit are made. */
  const stored = async (token: string) => {
    await groupCommit(core.db, () => undefined);
    return core.db.prepare('SELECT created, modified FROM tokens WHERE id = ?').get(tokenKey(token)) as { created: number; modified: number } | undefined;
  };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(0);
    // each case counts its own tokens
    core.db.prepare('DELETE FROM tokens').run();
  });
  afterEach(() => {
    vi.useRealTimers();
    core.config.remove('crossbar.auth');
  });
  afterAll(() => {
    closeCore(core);
    tmp.cleanup();
  });

  it('works idle for token_expiry_s exactly (an hour by default), is refused a millisecond later, and its row goes', async () => {
    const used = issue();
    const idle = issue();
    at(HOUR);
    works(used);
    at(HOUR + 1);
    refused(idle);
    expect(await stored(idle)).toBeUndefined();
    works(used);
    core.config.setValue('crossbar.auth', 'token_expiry_s', 60);
    const short = issue();
    at(HOUR + 1 + 60_000);
    works(short);
    at(HOUR + 1 + 120_001);
    refused(short);
    // once refused, it is gone: a longer expiry set afterwards does not bring it back
    expect(await stored(short)).toBeUndefined();
    core.config.setValue('crossbar.auth', 'token_expiry_s', 3600);
    refused(short);
  });

  it('a use more than a hundredth of the expiry after the last one slides it; a sooner one writes nothing', async () => {
    const token = issue();
    at(36_000);
    works(token);
    expect(await stored(token)).toEqual({ created: T0, modified: T0 });
    at(36_001);
    works(token);
    expect(await stored(token)).toEqual({ created: T0, modified: T0 + 36_001 });
    // the expiry runs from that use, in this process as in the file
    at(36_001 + HOUR);
    works(token);
    expect(tokenInfo(core, token, 'request').exp).toBe(Math.floor((T0 + 36_001 + 2 * HOUR) / 1000));
    at(36_001 + 2 * HOUR + 1);
    refused(token);
  });

  it('works until token_max_lifetime_s (a day by default) after its login however often used, not a millisecond more', async () => {
    const token = issue();
    for (let t = 0; t <= DAY - HOUR; t += HOUR) {
      at(t);
      works(token);
    }
    // near its end, it ends at its absolute lifetime, not an hour after its last use
    expect(tokenInfo(core, token, 'request').exp).toBe(Math.floor((T0 + DAY) / 1000));
    at(DAY);
    works(token);
    at(DAY + 1);
    refused(token);
    core.config.setValue('crossbar.auth', 'token_max_lifetime_s', 90);
    const short = issue();
    at(DAY + 1 + 90_000);
    works(short);
    expect(tokenInfo(core, short, 'request').exp).toBe(Math.floor((T0 + DAY + 1 + 90_000) / 1000));
    at(DAY + 1 + 90_001);
    refused(short);
  });

  it('a sweep that removes nothing leaves the tokens the requests read where they are (cached); one that removes some empties the cache', async () => {
    const token = issue();
    works(token);
    const reads = vi.fn(() => undefined);
    expect(sweepExpiredTokens(core)).toBe(0);
    tokenCache(core).get(token, reads);
    expect(reads).not.toHaveBeenCalled();
    const idle = issue();
    works(idle);
    at(HOUR / 2);
    works(token);
    await stored(token);
    at(HOUR + 1);
    expect(sweepExpiredTokens(core)).toBe(1);
    tokenCache(core).get(token, reads);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('the sweep removes the tokens idle past the expiry or older than the absolute lifetime, and counts them', async () => {
    const idle = issue();
    const busy = issue();
    works(idle);
    at(HOUR);
    works(busy);
    await stored(busy);
    expect(sweepExpiredTokens(core)).toBe(0);
    at(HOUR + 1);
    expect(sweepExpiredTokens(core)).toBe(1);
    expect(await stored(idle)).toBeUndefined();
    for (let t = 2 * HOUR; t <= DAY; t += HOUR) {
      at(t);
      works(busy);
    }
    await stored(busy);
    expect(sweepExpiredTokens(core)).toBe(0);
    at(DAY + 1);
    expect(sweepExpiredTokens(core)).toBe(1);
    expect(await stored(busy)).toBeUndefined();
    // what the sweep removed stays refused, though the lifetimes are made longer after
    core.config.setValue('crossbar.auth', 'token_expiry_s', 10 * 86_400);
    core.config.setValue('crossbar.auth', 'token_max_lifetime_s', 10 * 86_400);
    refused(idle);
    refused(busy);
  });

  it('tokens list: newest first, by id, one account with --account, the owner of a user token, restricted when it carries rules of either form', async () => {
    const sub = createAccount(core, { name: 'Listed' }, { parentId: master.account_id });
    const rules: EndpointRules = { _: [{ rules: { '#': ['GET'] } }] };
    const plain = issue();
    at(1000);
    const owned = issueToken(core, { account, ownerId: master.user_id, method: METHOD_USER_AUTH });
    at(2000);
    const ruled = issueToken(core, { account: getAccount(core, sub.id), method: METHOD_API_AUTH, restrictions: rules });
    at(3000);
    const login = issueToken(core, { account: getAccount(core, sub.id), method: METHOD_API_AUTH, loginRestrictions: { get: ['accounts'] } });
    expect(authenticate(core, ruled).restrictions).toEqual(rules);
    expect(authenticate(core, login).loginRestrictions).toEqual({ get: ['accounts'] });
    const list = async (...args: string[]) => {
      const r = await runTel(['tokens', 'list', '--db', join(tmp.dir, 'life.db'), '--json', ...args]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const iso = (ms: number) => new Date(T0 + ms).toISOString();
    expect(await list()).toEqual([
      { id: tokenKey(login), account_id: sub.id, method: METHOD_API_AUTH, restricted: true, created: iso(3000), modified: iso(3000) },
      { id: tokenKey(ruled), account_id: sub.id, method: METHOD_API_AUTH, restricted: true, created: iso(2000), modified: iso(2000) },
      { id: tokenKey(owned), account_id: master.account_id, owner_id: master.user_id, method: METHOD_USER_AUTH, restricted: false, created: iso(1000), modified: iso(1000) },
      { id: tokenKey(plain), account_id: master.account_id, method: METHOD_API_AUTH, restricted: false, created: iso(0), modified: iso(0) },
    ]);
    expect((await list('--account', sub.id)).map((t: { id: string }) => t.id)).toEqual([tokenKey(login), tokenKey(ruled)]);
  });

  it('a revocation by the id tokens list shows (its SHA-256) ends it; an unknown token or id revokes nothing', () => {
    const token = issue();
    works(token);
    expect(revokeToken(core, tokenKey(token).toUpperCase())).toBe(false);
    expect(revokeToken(core, tokenKey(token))).toBe(true);
    refused(token);
    expect(revokeToken(core, tokenKey(token))).toBe(false);
    expect(revokeToken(core, 'no-such-token')).toBe(false);
  });
});
