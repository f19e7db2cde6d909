import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { newId } from '../../util/ids.js';
import { transaction } from '../../store/db.js';
import { passwordHashCount } from './credentials.js';
import { loginKey } from './login-key.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('what a password costs the server', () => {
  let srv: TestServer;
  let big: { id: string };

  beforeAll(async () => {
    srv = await startTestServer();
    big = await createSubAccount(srv, srv.master.account_id, 'Big Co');
    // 3,000 users with login hashes of their own (as the API stores them, made with the same key)
    const key = loginKey(srv.core, true);
    const insert = srv.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'user', ?, ?, ?, '1-x', ?, ?)");
    const now = Date.now();
    transaction(srv.core.db, () => {
      for (let i = 0; i < 3000; i++) {
        const pvt = { pvt_login: { key: key.id, md5: randomBytes(32).toString('hex'), sha1: randomBytes(32).toString('hex') } };
        insert.run(newId(), big.id, JSON.stringify({ username: `user${i}`, priv_level: 'user', enabled: true }), JSON.stringify(pvt), now, now);
      }
    });
    const r = await srv.request('PUT', `/v2/accounts/${big.id}/users`, { token: srv.adminToken, data: { first_name: 'Lab', last_name: 'User', username: 'teller', password: 'pw-teller-1' } });
    expect(r.status).toBe(201);
  });
  afterAll(() => srv?.close());

  /** Logs in on Big Co; answers the status and the password hashes the server computed for it. */
  async function login(credentials: string, accountName = 'Big Co'): Promise<{ status: number; hashes: number }> {
    const before = passwordHashCount();
    const r = await srv.request('PUT', '/v2/user_auth', { data: { credentials, account_name: accountName } });
    return { status: r.status, hashes: passwordHashCount() - before };
  }

  it('a login in an account of 3,000 users costs one hash, right or wrong (trying each user would cost some 190)', async () => {
    expect(await login(md5('teller:pw-teller-1'))).toEqual({ status: 201, hashes: 1 });
    expect(await login(md5('teller:pw-teller-1'), 'Big Co')).toEqual({ status: 201, hashes: 0 });
    expect(await login(md5('teller:wrong'))).toEqual({ status: 401, hashes: 1 });
    expect(await login(md5('user7:guess'))).toEqual({ status: 401, hashes: 1 });
    expect(await login(md5('teller:pw-teller-1'), 'No Such Co')).toEqual({ status: 401, hashes: 0 });
  });

  it('the same credentials again cost no hash, until the password changes (the old one then fails, at one hash)', async () => {
    const r = await srv.request('PUT', `/v2/accounts/${big.id}/users`, { token: srv.adminToken, data: { first_name: 'Lab', last_name: 'User', username: 'again', password: 'pw-again-1' } });
    expect(r.status).toBe(201);
    expect(await login(md5('again:pw-again-1'))).toEqual({ status: 201, hashes: 1 });
    expect(await login(md5('again:pw-again-1'))).toEqual({ status: 201, hashes: 0 });
    const changed = await srv.request('PATCH', `/v2/accounts/${big.id}/users/${r.body.data.id}`, { token: srv.adminToken, data: { password: 'pw-again-2' } });
    expect(changed.status).toBe(200);
    expect(await login(md5('again:pw-again-1'))).toEqual({ status: 401, hashes: 1 });
    expect(await login(md5('again:pw-again-2'))).toEqual({ status: 201, hashes: 1 });
    // a disabled user's remembered login stands no more
    const disabled = await srv.request('PATCH', `/v2/accounts/${big.id}/users/${r.body.data.id}`, { token: srv.adminToken, data: { enabled: false } });
    expect(disabled.status).toBe(200);
    expect((await login(md5('again:pw-again-2'))).status).toBe(401);
  });

  it('a GET is answered while ten user creates hash their passwords, before they are', async () => {
    const before = passwordHashCount();
    let created = 0;
    const creates = Array.from({ length: 10 }, (_, i) =>
      srv
        .request('PUT', `/v2/accounts/${big.id}/users`, { token: srv.adminToken, data: { first_name: 'Lab', last_name: 'User', username: `new${i}`, password: `pw-new-${i}` } })
        .then((r) => {
          expect(r.status).toBe(201);
          created++;
        }),
    );
    // every create has handed its two hashes to the threadpool (hashing on the event loop, the
    // server would have answered them all by the time this runs again), looked at every turn
    while (passwordHashCount() - before < 20 && created < 10) await new Promise((r) => setImmediate(r));
    const got = await srv.request('GET', `/v2/accounts/${big.id}`, { token: srv.adminToken });
    const createdBeforeGet = created;
    expect(got.status).toBe(200);
    await Promise.all(creates);
    expect(createdBeforeGet).toBeLessThan(10);
    expect(passwordHashCount() - before).toBe(20);
  });
});
