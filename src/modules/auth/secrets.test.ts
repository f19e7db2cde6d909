import { createHash, randomBytes, scryptSync } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { newId } from '../../util/ids.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Reads the database file as another local process (a thief with a copy) would. */
function readFile<T>(file: string, sql: string, ...args: (string | number)[]): T[] {
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    return db.prepare(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}

describe('secrets at rest and guessing logins', () => {
  let srv: TestServer;
  let acct: { id: string; apiKey: string };

  beforeAll(async () => {
    srv = await startTestServer();
    acct = await createSubAccount(srv, srv.master.account_id, 'Vault Co');
    const r = await srv.request('PUT', `/v2/accounts/${acct.id}/users`, {
      token: srv.adminToken,
      data: { username: 'teller', password: 'pw-teller-1', first_name: 'F', last_name: 'L', priv_level: 'user' },
    });
    expect(r.status).toBe(201);
  });
  afterAll(() => srv?.close());

  it('a token read from the file does not authenticate: only its SHA-256 is stored', async () => {
    const token = await srv.userLogin('Vault Co', 'teller', 'pw-teller-1');
    const rows = readFile<{ id: string }>(srv.dbFile, 'SELECT id FROM tokens');
    expect(rows.map((r) => r.id)).toContain(createHash('sha256').update(token).digest('hex'));
    const dump = JSON.stringify(readFile(srv.dbFile, 'SELECT * FROM tokens'));
    expect(dump).not.toContain(token);
    for (const { id } of rows) {
      expect((await srv.request('GET', '/v2/token_auth', { token: id })).status).toBe(401);
    }
    expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(200);
  });

  it("a user's stored credential does not log in: it is a scrypt keyed by the login key, not Kazoo's md5/sha1", async () => {
    const [user] = readFile<{ pvt: string }>(srv.dbFile, "SELECT pvt FROM docs WHERE kind = 'user' AND account_id = ?", acct.id);
    const pvt = JSON.parse(user.pvt);
    const text = JSON.stringify(pvt);
    expect(text).not.toContain(md5('teller:pw-teller-1'));
    expect(text).not.toContain(sha1('teller:pw-teller-1'));
    expect(pvt.pvt_login.key).toMatch(/^[0-9a-f]{12}$/);
    for (const stolen of [pvt.pvt_login.md5, pvt.pvt_login.sha1]) {
      expect(stolen).toMatch(/^[0-9a-f]{64}$/);
      const r = await srv.request('PUT', '/v2/user_auth', { data: { credentials: stolen, account_name: 'Vault Co' } });
      expect(r.status).toBe(401);
    }
    // both wire forms still log in
    for (const [credentials, method] of [[md5('teller:pw-teller-1'), 'md5'], [sha1('teller:pw-teller-1'), 'sha']]) {
      const r = await srv.request('PUT', '/v2/user_auth', { data: { credentials, method, account_name: 'Vault Co' } });
      expect(r.status, method).toBe(201);
    }
  });

  /** Stores a user as an earlier tel did; answers its id. */
  function storeOldUser(username: string, pvt: Record<string, unknown>): string {
    const id = newId();
    const now = Date.now();
    srv.core.db
      .prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'user', ?, ?, ?, '1-x', ?, ?)")
      .run(id, acct.id, JSON.stringify({ username, priv_level: 'user', enabled: true }), JSON.stringify(pvt), now, now);
    return id;
  }

  const storedPvt = (id: string) => JSON.parse(readFile<{ pvt: string }>(srv.dbFile, 'SELECT pvt FROM docs WHERE id = ?', id)[0].pvt);
  const login = (credentials: string, method = 'md5') => srv.request('PUT', '/v2/user_auth', { data: { credentials, method, account_name: 'Vault Co' } });

  it('a user stored with a plain md5 (Kazoo, before salting) logs in once and is then stored with login hashes of both forms', async () => {
    const id = storeOldUser('old', { pvt_md5_auth: md5('old:pw-old-1'), pvt_sha1_auth: sha1('old:pw-old-1') });
    expect((await login(md5('old:pw-old-1'))).status).toBe(201);
    const pvt = storedPvt(id);
    expect(pvt.pvt_md5_auth).toBeUndefined();
    expect(pvt.pvt_sha1_auth).toBeUndefined();
    expect(pvt.pvt_login.md5).toMatch(/^[0-9a-f]{64}$/);
    expect(pvt.pvt_login.sha1).toMatch(/^[0-9a-f]{64}$/);
    expect((await login(md5('old:pw-old-1'))).status).toBe(201);
    expect((await login(sha1('old:pw-old-1'), 'sha')).status).toBe(201);
    expect((await login(md5('old:wrong'))).status).toBe(401);
  });

  it('a user stored salted (before login keys) logs in with md5 and is then stored with login hashes; with sha it keeps its salted record', async () => {
    const salt = randomBytes(16);
    const scrypted = (form: string) => scryptSync(form, salt, 32, { N: 16384, r: 8, p: 1 }).toString('hex');
    const hint = (form: string) => createHash('sha256').update(form).digest('hex')[0];
    const forms = { md5: md5('salty:pw-salty-1'), sha1: sha1('salty:pw-salty-1') };
    const salted = { salt: salt.toString('hex'), md5: scrypted(forms.md5), sha1: scrypted(forms.sha1), md5_hint: hint(forms.md5), sha1_hint: hint(forms.sha1) };
    const id = storeOldUser('salty', { pvt_credentials: salted });
    expect((await login(md5('salty:wrong'))).status).toBe(401);
    expect((await login(forms.sha1, 'sha')).status).toBe(201);
    expect(storedPvt(id).pvt_credentials).toEqual(salted);
    expect((await login(forms.md5)).status).toBe(201);
    const pvt = storedPvt(id);
    expect(pvt.pvt_credentials).toBeUndefined();
    expect(pvt.pvt_login).toMatchObject({ md5: expect.stringMatching(/^[0-9a-f]{64}$/), sha1: '' });
    expect((await login(forms.md5)).status).toBe(201);
  });

  it('past login_max_failures failed logins, tries wait their turn (a good one too) and a flood is answered 429 with Retry-After', async () => {
    // A server of its own: the other tests' failed logins count against the same address.
    const own = await startTestServer();
    try {
      const guessCo = await createSubAccount(own, own.master.account_id, 'Guess Co');
      await own.request('PUT', `/v2/accounts/${guessCo.id}/users`, {
        token: own.adminToken,
        data: { username: 'teller', password: 'pw-teller-1', first_name: 'F', last_name: 'L' },
      });
      await own.request('POST', '/v2/system_configs/crossbar.auth', { token: own.adminToken, data: { default: { login_max_failures: 3, login_failure_window_s: 2 } } });
      const guess = (pw: string) =>
        own.request('PUT', '/v2/user_auth', { data: { credentials: md5(`teller:${pw}`), account_name: 'Guess Co' } });
      for (let i = 0; i < 3; i++) expect((await guess(`wrong-${i}`)).status).toBe(401);
      // side by side: one try goes now, four wait their turn a second apart, the rest are refused
      const started = Date.now();
      const tries = await Promise.all(Array.from({ length: 7 }, (_, i) => guess(`wrong-more-${i}`)));
      expect(tries.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3500);
      const blocked = tries.find((r) => r.status === 429)!;
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(4);
      expect(blocked.body.data.cause).toBe('too many failed logins');
      expect(blocked.headers.get('content-type')).toBe('application/json');
      // the right password waits its turn too, and passes
      expect((await guess('pw-teller-1')).status).toBe(201);
    } finally {
      await own.close();
    }
  });

  it('a valid token on an endpoint that needs none gets an authenticated answer; a bad one an anonymous one', async () => {
    const anon = await srv.request('GET', '/v2/webhooks');
    expect(anon.body.version).toBeUndefined();
    const authed = await srv.request('GET', '/v2/webhooks', { token: srv.adminToken });
    expect(authed.status).toBe(200);
    expect(authed.body.version).toBeTypeOf('string');
    expect(authed.body.auth_token).toBe(srv.adminToken);
    const bad = await srv.request('GET', '/v2/webhooks', { token: 'nope' });
    expect(bad.status).toBe(200);
    expect(bad.body.version).toBeUndefined();
  });
});
