import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject, ownApiUrl } from '../../http/request.js';
import { permissionsSchema } from './schema.js';
import { accountApp, accountAppsListing, checkAppsWrite, configureApp, installApp, uninstallApp } from './service.js';

const STORE = 'accounts/:account_id/apps_store';
const ONE = `${STORE}/:app_id`;

/** `/v2/accounts/{id}/apps_store…`: the apps an account may use, and installing them (Kazoo's apps store). */
export const appsStoreRoutes: RouteDef[] = [
  { method: 'GET', path: STORE, handler: (ctx, core) => ({ data: accountAppsListing(core, ctx.params.account_id, ownApiUrl(ctx)) }) },
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
