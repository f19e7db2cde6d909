import type { Reply, RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { authOf, dataObject, ownApiUrl } from '../../http/request.js';
import { CSV_QUERY, FILTERS_QUERY, filtered } from '../../http/paging.js';
import { errors } from '../../errors.js';
import type { StoredFile } from '../documents/files.js';
import { appScreenshot, findAppIcon } from './files.js';
import { blacklistSchema, permissionsSchema } from './schema.js';
import {
  accountApp,
  accountAppsListing,
  blacklistOf,
  catalogueApp,
  checkAppsWrite,
  checkBlacklistAccess,
  configureApp,
  installApp,
  setBlacklist,
  uninstallApp,
} from './service.js';

const STORE = 'accounts/:account_id/apps_store';
const ONE = `${STORE}/:app_id`;

/** What the blacklist routes answer: the ids of the apps kept from the account. */
const BLACKLIST = { type: 'object', required: ['blacklist'], properties: { blacklist: { type: 'array', items: { type: 'string' } } } };

/** An image answered as itself (Monster UI puts its URL in an <img>, with `?auth_token=`). */
function imageReply(file: StoredFile): Reply {
  return { file: file.bytes, headers: { 'Content-Type': file.contentType, 'Cache-Control': 'max-age=3600', 'X-Content-Type-Options': 'nosniff' } };
}

/**
 * An app's icon and screenshots, without a token as Kazoo serves them (from the catalogue, as
 * Kazoo's `load_app_from_master_account`), under an account or, as older Monster UIs ask, without
 * one. The account is not looked up: a caller without a token may not learn which ids exist, so
 * an unknown one answers as any other.
 */
function fileRoutes(prefix: string): RouteDef[] {
  const app = (ctx: RequestContext, core: Core) => catalogueApp(core, ctx.params.app_id, () => errors.badIdentifier(ctx.params.app_id));
  return [
    {
      method: 'GET',
      path: `${prefix}/:app_id/icon`,
      auth: 'none',
      raw: 'image/*',
      handler: (ctx, core) => {
        const icon = findAppIcon(core, app(ctx, core).id);
        if (!icon) throw errors.badIdentifier('icon');
        return imageReply(icon);
      },
    },
    {
      method: 'GET',
      path: `${prefix}/:app_id/screenshot/:index`,
      auth: 'none',
      raw: 'image/*',
      handler: (ctx, core) => imageReply(appScreenshot(core, app(ctx, core).id, ctx.params.index)),
    },
  ];
}

/** `/v2/accounts/{id}/apps_store…`: the apps an account may use, and installing them (Kazoo's apps store). */
export const appsStoreRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: STORE,
    query: [FILTERS_QUERY, CSV_QUERY],
    handler: (ctx, core) => {
      const apiUrl = ownApiUrl(ctx);
      const list = accountAppsListing(core, ctx.params.account_id, apiUrl);
      // the filters test each app whole, as its GET shows it to the account
      return { data: filtered(list, ctx.query, (entry) => accountApp(core, ctx.params.account_id, String(entry.id), apiUrl)) };
    },
  },
  {
    method: 'GET',
    path: `${STORE}/blacklist`,
    response: BLACKLIST,
    handler: (ctx, core) => {
      checkBlacklistAccess(core, authOf(ctx), ctx.params.account_id, false);
      return { data: { blacklist: blacklistOf(core, ctx.params.account_id) } };
    },
  },
  {
    method: 'POST',
    path: `${STORE}/blacklist`,
    body: blacklistSchema,
    response: BLACKLIST,
    handler: (ctx, core) => {
      checkBlacklistAccess(core, authOf(ctx), ctx.params.account_id, true);
      return { data: setBlacklist(core, ctx.params.account_id, dataObject(ctx)) };
    },
  },
  ...fileRoutes(STORE),
  ...fileRoutes('apps_store'),
  { method: 'GET', path: ONE, handler: (ctx, core) => ({ data: accountApp(core, ctx.params.account_id, ctx.params.app_id, ownApiUrl(ctx)) }) },
  {
    method: 'PUT',
    path: ONE,
    body: permissionsSchema,
    handler: (ctx, core) => {
      checkAppsWrite(core, authOf(ctx));
      return { data: installApp(core, ctx.params.account_id, ctx.params.app_id, dataObject(ctx)) };
    },
  },
  {
    method: 'POST',
    path: ONE,
    body: permissionsSchema,
    handler: (ctx, core) => {
      checkAppsWrite(core, authOf(ctx));
      return { data: configureApp(core, ctx.params.account_id, ctx.params.app_id, dataObject(ctx)) };
    },
  },
  {
    method: 'DELETE',
    path: ONE,
    handler: (ctx, core) => {
      checkAppsWrite(core, authOf(ctx));
      uninstallApp(core, ctx.params.account_id, ctx.params.app_id);
      return { data: {} };
    },
  },
];
