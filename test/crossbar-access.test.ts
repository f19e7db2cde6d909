import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessListsModule } from '../src/modules/access-lists/module.js';
import { agentsModule } from '../src/modules/agents/module.js';
import { allotmentsModule } from '../src/modules/allotments/module.js';
import { attachmentStorageModule } from '../src/modules/attachment-storage/module.js';
import { blacklistsModule } from '../src/modules/blacklists/module.js';
import { clicktocallModule } from '../src/modules/clicktocall/module.js';
import { commentsModule } from '../src/modules/comments/module.js';
import { conferencesModule } from '../src/modules/conferences/module.js';
import { connectivityModule } from '../src/modules/connectivity/module.js';
import { contactListModule } from '../src/modules/contact-list/module.js';
import { dialplansModule } from '../src/modules/dialplans/module.js';
import { directoriesModule } from '../src/modules/directories/module.js';
import { groupsModule } from '../src/modules/groups/module.js';
import { hotdesksModule } from '../src/modules/hotdesks/module.js';
import { listsModule } from '../src/modules/lists/module.js';
import { menusModule } from '../src/modules/menus/module.js';
import { metaflowsModule } from '../src/modules/metaflows/module.js';
import { rateLimitsModule } from '../src/modules/rate-limits/module.js';
import { ratesModule } from '../src/modules/rates/module.js';
import { resourceSelectorsModule } from '../src/modules/resource-selectors/module.js';
import { temporalRulesModule } from '../src/modules/temporal-rules/module.js';
import { createSubAccount, startTestServer, type TestServer } from './helpers/server.js';

/** The routes of Kazoo's modules that need a token, beside tel's first ones. */
const ROUTES = [
  accessListsModule,
  agentsModule,
  allotmentsModule,
  attachmentStorageModule,
  blacklistsModule,
  clicktocallModule,
  commentsModule,
  conferencesModule,
  connectivityModule,
  contactListModule,
  dialplansModule,
  directoriesModule,
  groupsModule,
  hotdesksModule,
  listsModule,
  menusModule,
  metaflowsModule,
  rateLimitsModule,
  ratesModule,
  resourceSelectorsModule,
  temporalRulesModule,
].flatMap((m) => m.routes ?? []);

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

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const path = pathOf(route.path, mine.id);
    const data = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
    expect((await srv.request(route.method, path, { token: null, data })).status, 'no token').toBe(401);
    if (route.path.startsWith('accounts/')) expect((await srv.request(route.method, path, { token: theirs, data })).status, 'another account').toBe(403);
    const denied = await srv.request(route.method, path, { token: restricted, data });
    expect(denied.status, `restricted: ${denied.text}`).toBe(403);
  });
});
