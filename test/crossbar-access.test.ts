import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../src/modules/index.js';
import { createSubAccount, startTestServer, type TestServer } from './helpers/server.js';

/** The modules of Kazoo's crossbar served beside tel's first ones, by their name in MODULES. */
const NEW_MODULES = [
  'access_lists', 'agents', 'allotments', 'attachment_storage', 'blacklists', 'clicktocall', 'comments', 'conferences', 'connectivity',
  'contact_list', 'dialplans', 'directories', 'groups', 'hotdesks', 'lists', 'menus', 'metaflows', 'rate_limits', 'rates',
  'resource_selectors', 'temporal_rules',
  // the switch-facing ones
  'acdc_call_stats', 'cdrs', 'channels', 'faxes', 'messages', 'parked_calls', 'presence', 'quickcall', 'recordings',
];

/** Their routes that need a token. */
const ROUTES = MODULES.filter((m) => NEW_MODULES.includes(m.name)).flatMap((m) => (m.routes ?? []).filter((r) => r.auth !== 'none'));

const ID = 'f'.repeat(32);

/** A route's path with its account and every other parameter filled in. */
const pathOf = (template: string, account: string) => `/v2/${template.replace(':account_id', account).replace(/:\w+/g, ID)}`;

/**
 * The order of checks holds on every new route as on the old ones (the router and its checks
 * decide it, no handler): no token 401; a token of another account, or one its restrictions deny,
 * 403 — before anything says whether a document exists or a body is valid.
 */
describe("the order of checks on Kazoo's other modules", () => {
  let srv: TestServer;
  let mine: { id: string; apiKey: string };
  let theirs: string;
  let restricted: string;

  beforeAll(async () => {
    srv = await startTestServer();
    mine = await createSubAccount(srv, srv.master.account_id, 'Mine');
    const other = await createSubAccount(srv, srv.master.account_id, 'Theirs');
    theirs = await srv.apiLogin(other.apiKey);
    restricted = await srv.apiLogin(mine.apiKey, { get: ['token_auth'] });
  });
  afterAll(() => srv?.close());

  it('covers every module named', () => expect(new Set(MODULES.filter((m) => NEW_MODULES.includes(m.name)).map((m) => m.name)).size).toBe(NEW_MODULES.length));

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const path = pathOf(route.path, mine.id);
    const data = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
    expect((await srv.request(route.method, path, { token: null, data })).status, 'no token').toBe(401);
    if (route.path.startsWith('accounts/')) expect((await srv.request(route.method, path, { token: theirs, data })).status, 'another account').toBe(403);
    const denied = await srv.request(route.method, path, { token: restricted, data });
    expect(denied.status, `restricted: ${denied.text}`).toBe(403);
  });
});
