import { writeRoutes, type RouteDef } from '../../http/router.js';
import { dataObject } from '../../http/request.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { descendingOf, listingReply, opaqueKey, orderQuery, pagingQuery } from '../../http/paging.js';
import { getAccount } from '../accounts/service.js';
import { canonicalCategory } from './service.js';
import { adminOnly, WRITE_METHODS } from '../../http/authorize.js';

/** An account's configuration (`/v2/accounts/{id}/configs/{category}`) is changed by its admins only (Kazoo: any user). */
export const requireAdminForAccountConfig = adminOnly(
  // `configs/webhooks` parses as two resources (webhooks is an endpoint too): any `configs` in the path
  ({ method, path }) => WRITE_METHODS.has(method) && path.resources.some((r) => r.name === 'configs'),
  "changing the account's configuration needs an admin of the account",
);

/** A category's document, as `set` takes it: nodes of settings, `default` first (a flat object is the default node). */
const CATEGORY_DOCUMENT = { type: 'object', properties: { default: { type: 'object' } }, additionalProperties: { type: 'object' } };

/** One node's settings, as `POST`/`PATCH …/{category}/{node}` take them. */
const NODE_SETTINGS = { type: 'object', description: 'the settings of the node (a zone, or a `name@host` node): what differs from the default node is kept' };

/** An account's settings of a category (the webhooks category's keys are checked as its schema says). */
const ACCOUNT_SETTINGS = {
  type: 'object',
  description: "the account's settings of the category; only what differs from what it inherits (its reseller's settings, the system's default node) is stored",
};

/** `?with_defaults=true`: the built-in settings filled in. */
const WITH_DEFAULTS = [{ name: 'with_defaults', description: '`true` fills in the built-in settings', schema: { type: 'boolean' } }];

/** Categories are listed by name, keyed by it. */
const BY_CATEGORY = opaqueKey('string');
const BY_CATEGORY_QUERY = [...pagingQuery(), ...orderQuery('by name, A to Z', 'by name, Z to A')];

const ACCOUNT = 'accounts/:account_id/configs/:category';
const NODE = 'system_configs/:category/:node';

/** The account of the path, once it exists (a change needs an admin of it: requireAdminForAccountConfig). */
function configAccount(ctx: RequestContext, core: Core): string {
  return getAccount(core, ctx.params.account_id).id;
}

/**
 * `/v2/system_configs[/{category}[/{node}]]` (super-duper admin only) and an account's
 * categories, `/v2/accounts/{id}/configs/{category}`.
 */
export const configRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'system_configs',
    superduper: true,
    // the stored categories, paged as Kazoo's crossbar_view pages them (cb_system_configs summary/1); the filters test each category's document
    query: BY_CATEGORY_QUERY,
    response: { type: 'array', items: { type: 'string' } },
    handler: (ctx, core) =>
      listingReply(ctx.query, (q) => core.config.page(q, descendingOf(ctx.query)), (c) => c, BY_CATEGORY, { whole: (c) => core.config.get(c) ?? {} }),
  },
  {
    method: 'GET',
    path: 'system_configs/:category',
    superduper: true,
    query: WITH_DEFAULTS,
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
  {
    method: 'PATCH',
    path: 'system_configs/:category',
    superduper: true,
    body: CATEGORY_DOCUMENT,
    handler: (ctx, core) => ({ data: core.config.patch(ctx.params.category, dataObject(ctx)) }),
  },
  {
    method: 'GET',
    path: NODE,
    superduper: true,
    query: WITH_DEFAULTS,
    handler: (ctx, core) => ({ data: core.config.node(ctx.params.category, ctx.params.node, ctx.query.get('with_defaults') === 'true') }),
  },
  ...writeRoutes(NODE, (ctx, core, mode) => ({ data: core.config.setNode(ctx.params.category, ctx.params.node, dataObject(ctx), mode) }), NODE_SETTINGS).map(
    (r): RouteDef => ({ ...r, superduper: true }),
  ),
  {
    method: 'DELETE',
    path: NODE,
    superduper: true,
    // Kazoo's cb_system_configs delete/4 answers the node's id only, and a node not there as response_bad_identifier/2 does
    response: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: '`{category}/{node}`' } } },
    handler: (ctx, core) => {
      const removed = core.config.removeNode(ctx.params.category, ctx.params.node);
      if (!removed) throw errors.badIdentifierList(ctx.params.node);
      return { data: { id: `${canonicalCategory(ctx.params.category)}/${ctx.params.node}` } };
    },
  },
  { method: 'GET', path: ACCOUNT, handler: (ctx, core) => ({ data: core.config.accountView(configAccount(ctx, core), ctx.params.category) }) },
  // PUT is POST, as Kazoo's
  ...(['PUT', 'POST'] as const).map(
    (method): RouteDef => ({
      method,
      path: ACCOUNT,
      body: ACCOUNT_SETTINGS,
      handler: (ctx, core) => ({ data: core.config.changeForAccount(configAccount(ctx, core), ctx.params.category, dataObject(ctx), 'replace') }),
    }),
  ),
  {
    method: 'PATCH',
    path: ACCOUNT,
    body: ACCOUNT_SETTINGS,
    handler: (ctx, core) => ({ data: core.config.changeForAccount(configAccount(ctx, core), ctx.params.category, dataObject(ctx), 'merge') }),
  },
  { method: 'DELETE', path: ACCOUNT, handler: (ctx, core) => ({ data: core.config.resetForAccount(configAccount(ctx, core), ctx.params.category) }) },
];
