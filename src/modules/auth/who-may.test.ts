import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { MASKED } from '../webhooks/service.js';
import { WEBHOOKS_APP_ID } from '../apps-store/service.js';

/**
 * Who may do what, as a table (one scenario a row, one actor a column). The tree:
 * master → Parent → { Sub (users boss: admin, clerk: user, victim: admin), Sibling }.
 */
type Actor = 'super-duper admin' | 'account admin' | 'plain user' | 'parent account token' | 'sibling account token' | 'restricted token';
const ACTORS: Actor[] = ['super-duper admin', 'account admin', 'plain user', 'parent account token', 'sibling account token', 'restricted token'];

/** An expected outcome: a status, or for secrets whether the caller saw them. */
type Outcome = number | 'secret shown' | 'secret masked';

interface World {
  sub: string;
  victim: string;
  hookPath: string;
  /** a fresh leaf account under Sub (for deletions) */
  leaf(): Promise<string>;
}

interface Scenario {
  name: string;
  method: string;
  path(w: World): string | Promise<string>;
  data?: (w: World) => unknown;
  /** reads the outcome from the answer when a status alone does not tell it */
  outcome?: (status: number, body: any) => Outcome;
  expect: Record<Actor, Outcome>;
}

const secretSeen = (status: number, body: any): Outcome =>
  status !== 200 ? status : body.data.secret === MASKED && body.data.uri.includes(MASKED) ? 'secret masked' : 'secret shown';

/** Something of the account every caller of it reads (not a sibling, nor a token restricted to users). */
const READ_BY_ITS_CALLERS: Record<Actor, Outcome> = {
  'super-duper admin': 200,
  'account admin': 200,
  'plain user': 200,
  'parent account token': 200,
  'sibling account token': 403,
  'restricted token': 403,
};

/** Something of the account only its admins (and those above it) change. */
const CHANGED_BY_ITS_ADMINS: Record<Actor, Outcome> = { ...READ_BY_ITS_CALLERS, 'plain user': 403 };

const SCENARIOS: Scenario[] = [
  {
    name: "list the account's users",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/users`,
    expect: { 'super-duper admin': 200, 'account admin': 200, 'plain user': 200, 'parent account token': 200, 'sibling account token': 403, 'restricted token': 200 },
  },
  {
    name: 'create a user',
    method: 'PUT',
    path: (w) => `/v2/accounts/${w.sub}/users`,
    data: () => ({ username: `u${Math.random().toString(16).slice(2, 10)}`, password: 'pw-created-1', first_name: 'F', last_name: 'L' }),
    expect: { 'super-duper admin': 201, 'account admin': 201, 'plain user': 403, 'parent account token': 201, 'sibling account token': 403, 'restricted token': 403 },
  },
  {
    name: "change another user's password",
    method: 'PATCH',
    path: (w) => `/v2/accounts/${w.sub}/users/${w.victim}`,
    data: () => ({ password: `pw-${Math.random().toString(16).slice(2, 10)}` }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: 'make a user an admin',
    method: 'PATCH',
    path: (w) => `/v2/accounts/${w.sub}/users/${w.victim}`,
    data: () => ({ priv_level: 'admin' }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read the account's API key",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/api_key`,
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "edit the account's document",
    method: 'PATCH',
    path: (w) => `/v2/accounts/${w.sub}`,
    data: () => ({ timezone: 'Europe/Paris' }),
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: 'delete a sub-account',
    method: 'DELETE',
    path: (w) => w.leaf().then((id) => `/v2/accounts/${id}`),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read a webhook's secret and uri credentials",
    method: 'GET',
    path: (w) => w.hookPath,
    outcome: secretSeen,
    expect: {
      'super-duper admin': 'secret shown',
      'account admin': 'secret shown',
      'plain user': 'secret masked',
      'parent account token': 'secret shown',
      'sibling account token': 403,
      'restricted token': 403,
    },
  },
  {
    name: 'create a webhook',
    method: 'PUT',
    path: (w) => `/v2/accounts/${w.sub}/webhooks`,
    data: () => ({ name: `h${Math.random().toString(16).slice(2, 8)}`, uri: 'http://127.0.0.1:9/x', hook: 'channel_create' }),
    expect: { 'super-duper admin': 201, 'account admin': 201, 'plain user': 201, 'parent account token': 201, 'sibling account token': 403, 'restricted token': 403 },
  },
  {
    name: "change the account's token restrictions",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/token_restrictions`,
    data: () => ({ restrictions: {} }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read the account's token restrictions",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/token_restrictions`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "read the account's limits",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/limits`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "change the account's limits",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/limits`,
    data: () => ({ inbound_trunks: 2 }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: 'list the apps the account may use',
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/apps_store`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: 'change who of the account may use an app',
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/apps_store/${WEBHOOKS_APP_ID}`,
    data: () => ({ allowed_users: 'all' }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read the account's whitelabel",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/whitelabel`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "change the account's whitelabel",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/whitelabel`,
    data: () => ({ company_name: `Co ${Math.random().toString(16).slice(2, 8)}` }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
];

describe('who may do what', () => {
  let srv: TestServer;
  let world: World;
  const tokens = {} as Record<Actor, string>;

  beforeAll(async () => {
    srv = await startTestServer();
    const admin = srv.adminToken;
    const parent = await createSubAccount(srv, srv.master.account_id, 'Parent');
    const sub = await createSubAccount(srv, parent.id, 'Sub');
    const sibling = await createSubAccount(srv, parent.id, 'Sibling');
    const users: Record<string, string> = {};
    for (const [username, priv_level] of [['boss', 'admin'], ['clerk', 'user'], ['victim', 'admin']]) {
      const r = await srv.request('PUT', `/v2/accounts/${sub.id}/users`, { token: admin, data: { username, password: `pw-${username}`, priv_level, first_name: 'F', last_name: 'L' } });
      users[username] = r.body.data.id;
    }
    const hook = await srv.request('PUT', `/v2/accounts/${sub.id}/webhooks`, {
      token: admin,
      data: { name: 'CRM', uri: 'http://crm:pa55@127.0.0.1:9/hook', hook: 'channel_create', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=' },
    });
    await srv.request('PUT', `/v2/accounts/${sub.id}/apps_store/${WEBHOOKS_APP_ID}`, { token: admin, data: { allowed_users: 'admins' } });
    await srv.request('PUT', `/v2/accounts/${sub.id}/whitelabel`, { token: admin, data: { company_name: 'Sub Co' } });
    let leaves = 0;
    world = {
      sub: sub.id,
      victim: users.victim,
      hookPath: `/v2/accounts/${sub.id}/webhooks/${hook.body.data.id}`,
      leaf: async () => (await createSubAccount(srv, sub.id, `Leaf ${++leaves}`)).id,
    };
    tokens['super-duper admin'] = admin;
    tokens['account admin'] = await srv.userLogin('Sub', 'boss', 'pw-boss');
    tokens['plain user'] = await srv.userLogin('Sub', 'clerk', 'pw-clerk');
    tokens['parent account token'] = await srv.apiLogin(parent.apiKey);
    tokens['sibling account token'] = await srv.apiLogin(sibling.apiKey);
    tokens['restricted token'] = await srv.apiLogin(sub.apiKey, { get: [`accounts/${sub.id}/users`, `accounts/${sub.id}/users/#`] });
  });
  afterAll(() => srv?.close());

  for (const s of SCENARIOS) {
    for (const actor of ACTORS) {
      const want = s.expect[actor];
      const verdict = typeof want === 'number' ? (want < 300 ? `may (${want})` : `may not (${want})`) : `sees the ${want}`;
      it(`${actor}: ${s.name} — ${verdict}`, async () => {
        const r = await srv.request(s.method, await s.path(world), { token: tokens[actor], data: s.data?.(world) });
        const got = s.outcome ? s.outcome(r.status, r.body) : r.status;
        expect(got, r.text).toBe(want);
      });
    }
  }
});
