import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe("users as Kazoo's: names required, credentials optional", () => {
  let srv: TestServer;
  let account: { id: string; apiKey: string };
  let users: string;
  const put = (data: Record<string, unknown>) => srv.request('PUT', users, { token: srv.adminToken, data });
  const change = (method: 'POST' | 'PATCH', id: string, data: Record<string, unknown>) => srv.request(method, `${users}/${id}`, { token: srv.adminToken, data });

  beforeAll(async () => {
    srv = await startTestServer();
    account = await createSubAccount(srv, srv.master.account_id, 'People');
    users = `/v2/accounts/${account.id}/users`;
  });
  afterAll(() => srv.close());

  it('needs a first and a last name; nothing else', async () => {
    const r = await put({ username: 'nameless', password: 'pw-1' });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.data).sort()).toEqual(['first_name', 'last_name']);
    expect(r.body.data.first_name.required.message).toBe('Field is required but missing');
    const bare = await put({ first_name: 'No', last_name: 'Login' });
    expect(bare.status).toBe(201);
    expect(bare.body.data.username).toBeUndefined();
  });

  it('a user without a password exists and cannot log in until one is set; then it can', async () => {
    const r = await put({ first_name: 'Pat', last_name: 'Later', username: 'Pat' });
    expect(r.status).toBe(201);
    // usernames are kept in lower case, as Kazoo keeps them
    expect(r.body.data.username).toBe('pat');
    await expect(srv.userLogin('People', 'pat', '')).rejects.toThrow(/401/);
    const set = await change('PATCH', r.body.data.id, { password: 'pw-pat-1' });
    expect(set.status).toBe(200);
    expect(set.body.data.password).toBeUndefined();
    expect(await srv.userLogin('People', 'pat', 'pw-pat-1')).toEqual(expect.any(String));
  });

  it('a password without a username gets a made-up username, as Kazoo makes one', async () => {
    const r = await put({ first_name: 'Anon', last_name: 'Ymous', password: 'pw-anon-1' });
    expect(r.status).toBe(201);
    expect(r.body.data.username).toMatch(/^user_[0-9a-f]{16}$/);
    expect(await srv.userLogin('People', r.body.data.username, 'pw-anon-1')).toEqual(expect.any(String));
  });

  it('a new username needs the password too (the hashes are of both); a user left with neither cannot log in', async () => {
    const r = await put({ first_name: 'Sam', last_name: 'Renamed', username: 'sam', password: 'pw-sam-1' });
    const id = r.body.data.id;
    const renamed = await change('PATCH', id, { username: 'samuel' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.data.password.required).toEqual({ message: 'The password must be provided when creating / updating the user name', cause: 'samuel' });
    expect((await change('PATCH', id, { username: 'samuel', password: 'pw-sam-2' })).status).toBe(200);
    expect(await srv.userLogin('People', 'samuel', 'pw-sam-2')).toEqual(expect.any(String));
    // a POST without a username: Kazoo drops the credentials
    const { id: _id, ...doc } = (await srv.request('GET', `${users}/${id}`, { token: srv.adminToken })).body.data;
    expect((await change('POST', id, { ...doc, username: undefined })).status).toBe(200);
    await expect(srv.userLogin('People', 'samuel', 'pw-sam-2')).rejects.toThrow(/401/);
  });

  it('a username and a hotdesk id are unique in the account, in any letter case (Kazoo\'s messages)', async () => {
    await put({ first_name: 'A', last_name: 'One', username: 'dup', hotdesk: { id: '1234' } });
    const again = await put({ first_name: 'B', last_name: 'Two', username: 'DUP', hotdesk: { id: '1234' } });
    expect(again.status).toBe(400);
    expect(again.body.data).toEqual({
      username: { unique: { message: 'Username must be unique within account', cause: 'dup' } },
      'hotdesk.id': { unique: { message: 'Hotdesk ID must be unique within account', cause: '1234' } },
    });
    // another account may have the same
    const other = await createSubAccount(srv, srv.master.account_id, 'Elsewhere');
    const there = await srv.request('PUT', `/v2/accounts/${other.id}/users`, { token: srv.adminToken, data: { first_name: 'B', last_name: 'Two', username: 'dup' } });
    expect(there.status).toBe(201);
  });

  it('a PATCH merges deeply into the stored user and the whole is validated; null removes a field', async () => {
    const r = await put({ first_name: 'Deep', last_name: 'Merge', caller_id: { internal: { name: 'Desk', number: '100' }, external: { number: '+14155550100' } } });
    const id = r.body.data.id;
    const p = await change('PATCH', id, { caller_id: { internal: { name: 'Front desk' }, external: null } });
    expect(p.status).toBe(200);
    expect(p.body.data.caller_id).toEqual({ internal: { name: 'Front desk', number: '100' } });
    const bad = await change('PATCH', id, { caller_id: { internal: { name: 'x'.repeat(36) } }, first_name: null });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data).sort()).toEqual(['caller_id.internal.name', 'first_name']);
  });
});
