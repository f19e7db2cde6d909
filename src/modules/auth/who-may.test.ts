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

/** An expected outcome: a status, for secrets whether the caller saw them, for installs whether the catalogue held. */
type Outcome = number | 'secret shown' | 'secret masked' | 'catalogue kept' | 'catalogue replaced';

interface World {
  sub: string;
  victim: string;
  hookPath: string;
  /** a second signed hook, repointed by the scenarios */
  signedHookPath: string;
  resourcePath: string;
  queue: string;
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

const gatewayPasswordSeen = (status: number, body: any): Outcome =>
  status !== 200 ? status : body.data.gateways[0].password === MASKED ? 'secret masked' : 'secret shown';

const catalogueHeld = (status: number, body: any): Outcome =>
  status !== 200 ? status : body.data.source_url === undefined ? 'catalogue kept' : 'catalogue replaced';

const random = () => Math.random().toString(16).slice(2, 10);

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

/** A secret of the account's: shown to its admins (and those above it), masked for its other users. */
const SECRETS_FOR_ITS_ADMINS: Record<Actor, Outcome> = {
  'super-duper admin': 'secret shown',
  'account admin': 'secret shown',
  'plain user': 'secret masked',
  'parent account token': 'secret shown',
  'sibling account token': 403,
  'restricted token': 403,
};

/** Something only a super-duper admin may do (`ok`: its status). */
const SUPERDUPER_ONLY = (ok: number): Record<Actor, Outcome> => ({
  'super-duper admin': ok,
  'account admin': 403,
  'plain user': 403,
  'parent account token': 403,
  'sibling account token': 403,
  'restricted token': 403,
});

/** What the users of the account read, the token restricted to reading users included. */
const READ_WITH_USERS: Record<Actor, Outcome> = { ...READ_BY_ITS_CALLERS, 'restricted token': 200 };

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
    expect: SECRETS_FOR_ITS_ADMINS,
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
    name: "install an app with a source_url of one's own",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/apps_store/${WEBHOOKS_APP_ID}`,
    data: () => ({ allowed_users: 'all', source_url: 'https://evil.example/apps' }),
    outcome: catalogueHeld,
    expect: { ...READ_BY_ITS_CALLERS, 'super-duper admin': 'catalogue kept', 'account admin': 'catalogue kept', 'plain user': 403, 'parent account token': 'catalogue kept' },
  },
  {
    name: "change the account's webhook settings",
    method: 'PATCH',
    path: (w) => `/v2/accounts/${w.sub}/configs/webhooks`,
    data: () => ({ attempt_failure_count: 2 + Math.floor(Math.random() * 5) }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read the account's webhook settings",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/configs/webhooks`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "repoint a signed webhook (its uri)",
    method: 'PATCH',
    path: (w) => w.signedHookPath,
    data: () => ({ uri: `http://127.0.0.1:9/${random()}` }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: 'create a resource (a carrier)',
    method: 'PUT',
    path: (w) => `/v2/accounts/${w.sub}/resources`,
    data: () => ({ name: `carrier ${random()}`, gateways: [{ server: 'sip.carrier.example' }] }),
    expect: { ...CHANGED_BY_ITS_ADMINS, 'super-duper admin': 201, 'account admin': 201, 'parent account token': 201 },
  },
  {
    name: "read a gateway's password",
    method: 'GET',
    path: (w) => w.resourcePath,
    outcome: gatewayPasswordSeen,
    expect: SECRETS_FOR_ITS_ADMINS,
  },
  {
    name: 'claim a whitelabel domain (only a reseller or a super-duper admin)',
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/whitelabel`,
    data: () => ({ domain: `ui-${random()}.example.com` }),
    expect: { ...CHANGED_BY_ITS_ADMINS, 'account admin': 403, 'parent account token': 403 },
  },
  {
    name: "read the account's whitelabel",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/whitelabel`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "read the account's parents and tree",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/tree`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: 'list the siblings of the account (from above it only)',
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/siblings`,
    expect: { ...SUPERDUPER_ONLY(200), 'parent account token': 200 },
  },
  {
    name: "move a sub-account under another one of the account (Kazoo's default allow_move: super-duper admins)",
    method: 'POST',
    path: (w) => w.leaf().then((id) => `/v2/accounts/${id}/move`),
    data: () => ({ to: moveTarget }),
    expect: SUPERDUPER_ONLY(200),
  },
  {
    name: 'promote a sub-account to reseller',
    method: 'PUT',
    path: (w) => w.leaf().then((id) => `/v2/accounts/${id}/reseller`),
    expect: SUPERDUPER_ONLY(201),
  },
  {
    name: "read the account's configuration of a category",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/configs/conferences`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "change the account's configuration of a category",
    method: 'PATCH',
    path: (w) => `/v2/accounts/${w.sub}/configs/conferences`,
    data: () => ({ pin_timeout: Math.floor(Math.random() * 10_000) }),
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: 'change a node of a system configuration category',
    method: 'POST',
    path: () => '/v2/system_configs/conferences/node1@lab',
    data: () => ({ pin_timeout: 1 }),
    expect: SUPERDUPER_ONLY(200),
  },
  {
    name: 'read the resource templates offered to the account',
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/resource_templates`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "create a resource template (its reseller's, the master account here)",
    method: 'PUT',
    path: (w) => `/v2/accounts/${w.sub}/resource_templates`,
    data: () => ({ template_name: 'who-may' }),
    expect: SUPERDUPER_ONLY(201),
  },
  {
    name: "read a user's vCard",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/users/${w.victim}/vcard`,
    expect: READ_WITH_USERS,
  },
  {
    name: "remove another user's photo",
    method: 'DELETE',
    path: (w) => `/v2/accounts/${w.sub}/users/${w.victim}/photo`,
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read a queue's roster",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/queues/${w.queue}/roster`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "set a queue's roster",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/queues/${w.queue}/roster`,
    data: (w) => [w.victim],
    expect: CHANGED_BY_ITS_ADMINS,
  },
  {
    name: "read the account's apps blacklist (from an account above it only)",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/apps_store/blacklist`,
    expect: { ...READ_BY_ITS_CALLERS, 'account admin': 403, 'plain user': 403 },
  },
  {
    name: "change the account's apps blacklist (an admin of a reseller above it: here only the master account)",
    method: 'POST',
    path: (w) => `/v2/accounts/${w.sub}/apps_store/blacklist`,
    data: () => ({ blacklist: [] }),
    expect: SUPERDUPER_ONLY(200),
  },
  {
    name: "fetch an app's icon (no token needed)",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/apps_store/${WEBHOOKS_APP_ID}/icon`,
    expect: { ...READ_BY_ITS_CALLERS, 'sibling account token': 200, 'restricted token': 200 },
  },
  {
    name: "read the DNS records of the account's whitelabel domain",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/whitelabel/domains?domain=who-may.example.com`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "read the server's about",
    method: 'GET',
    path: () => '/v2/about',
    expect: SUPERDUPER_ONLY(200),
  },
  {
    name: "read the server's about under the account",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/about`,
    expect: READ_BY_ITS_CALLERS,
  },
  {
    name: "read the account's ledgers",
    method: 'GET',
    path: (w) => `/v2/accounts/${w.sub}/ledgers`,
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

/** Where the move scenario puts its leaves: an account under Sub (set once the tree exists). */
let moveTarget = '';

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
    const signed = await srv.request('PUT', `/v2/accounts/${sub.id}/webhooks`, {
      token: admin,
      data: { name: 'Signed', uri: 'http://127.0.0.1:9/signed', hook: 'channel_create', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=' },
    });
    const carrier = await srv.request('PUT', `/v2/accounts/${sub.id}/resources`, {
      token: admin,
      data: { name: 'Carrier', gateways: [{ server: 'sip.carrier.example', username: 'lab', password: 'carrier-pass' }] },
    });
    await srv.request('PUT', `/v2/accounts/${sub.id}/apps_store/${WEBHOOKS_APP_ID}`, { token: admin, data: { allowed_users: 'admins' } });
    await srv.request('PUT', `/v2/accounts/${sub.id}/whitelabel`, { token: admin, data: { company_name: 'Sub Co' } });
    const queue = await srv.request('PUT', `/v2/accounts/${sub.id}/queues`, { token: admin, data: { name: 'Who-may queue' } });
    moveTarget = (await createSubAccount(srv, sub.id, 'Move target')).id;
    let leaves = 0;
    world = {
      sub: sub.id,
      victim: users.victim,
      queue: queue.body.data.id,
      hookPath: `/v2/accounts/${sub.id}/webhooks/${hook.body.data.id}`,
      signedHookPath: `/v2/accounts/${sub.id}/webhooks/${signed.body.data.id}`,
      resourcePath: `/v2/accounts/${sub.id}/resources/${carrier.body.data.id}`,
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

describe("an admin-only change on a descendant's account", () => {
  let srv: TestServer;
  afterAll(() => srv?.close());

  it("is refused to a plain user of the account above, as on the user's own account", async () => {
    srv = await startTestServer();
    const admin = srv.adminToken;
    const parent = await createSubAccount(srv, srv.master.account_id, 'Upper');
    const child = await createSubAccount(srv, parent.id, 'Lower');
    await srv.request('PUT', `/v2/accounts/${parent.id}/users`, { token: admin, data: { username: 'temp', password: 'pw-temp-1', priv_level: 'user', first_name: 'T', last_name: 'Emp' } });
    const temp = await srv.userLogin('Upper', 'temp', 'pw-temp-1');
    for (const account of [parent.id, child.id]) {
      const r = await srv.request('POST', `/v2/accounts/${account}/configs/webhooks`, { token: temp, data: { retry_base_delay_ms: 10 } });
      expect(r.status, r.text).toBe(403);
      expect(r.body.data.cause).toBe("changing the account's configuration needs an admin of the account");
    }
    // an account outside the tree, or one that does not exist, is refused as foreign, without saying more
    const beside = await createSubAccount(srv, srv.master.account_id, 'Beside');
    for (const account of [beside.id, 'e'.repeat(32)]) {
      const r = await srv.request('POST', `/v2/accounts/${account}/configs/webhooks`, { token: temp, data: { retry_base_delay_ms: 10 } });
      expect(r.status, r.text).toBe(403);
      expect(r.body.data.cause).toBe('the token may act on its own account and its descendants only');
    }
  });
});
