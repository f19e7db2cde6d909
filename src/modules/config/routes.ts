import type { RouteDef } from '../../http/router.js';
import { dataObject } from '../../http/request.js';
import { errors } from '../../errors.js';
import { canonicalCategory } from './service.js';
import { adminOnly, WRITE_METHODS } from '../auth/admin-writes.js';

/** An account's configuration (`/v2/accounts/{id}/configs/{category}`) is changed by its admins only (Kazoo: any user). */
export const requireAdminForAccountConfig = adminOnly(
  // `configs/webhooks` parses as two resources (webhooks is an endpoint too): any `configs` in the path
  ({ method, path }) => WRITE_METHODS.has(method) && path.resources.some((r) => r.name === 'configs'),
  "changing the account's configuration needs an admin of the account",
);

/** A category's document, as `set` takes it: nodes of settings, `default` first (a flat object is the default node). */
const CATEGORY_DOCUMENT = { type: 'object', properties: { default: { type: 'object' } }, additionalProperties: { type: 'object' } };

/** `/v2/system_configs[/{category}]` (super-duper admin only). */
export const configRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'system_configs',
    superduper: true,
    handler: (_ctx, core) => ({ data: core.config.list() }),
  },
  {
    method: 'GET',
    path: 'system_configs/:category',
    superduper: true,
    handler: (ctx, core) => {
      // `?with_defaults=true` fills in the built-in settings, as Kazoo's does.
      const withDefaults = ctx.query.get('with_defaults') === 'true';
      const doc = withDefaults ? core.config.withDefaults(ctx.params.category) : core.config.get(ctx.params.category);
      if (!doc) throw errors.badIdentifier(canonicalCategory(ctx.params.category));
      return { data: doc };
    },
  },
  {
    method: 'POST',
    path: 'system_configs/:category',
    superduper: true,
    body: CATEGORY_DOCUMENT,
    handler: (ctx, core) => ({ data: core.config.set(ctx.params.category, dataObject(ctx)) }),
  },
  {
    method: 'PUT',
    path: 'system_configs/:category',
    superduper: true,
    body: CATEGORY_DOCUMENT,
    handler: (ctx, core) => ({ data: core.config.set(ctx.params.category, dataObject(ctx)) }),
  },
  {
    method: 'DELETE',
    path: 'system_configs/:category',
    superduper: true,
    handler: (ctx, core) => {
      const doc = core.config.remove(ctx.params.category);
      if (!doc) throw errors.badIdentifier(canonicalCategory(ctx.params.category));
      return { data: { ...doc, _read_only: { deleted: true } } };
    },
  },
];
