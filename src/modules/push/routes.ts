import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply, NEWEST_FIRST_QUERY, newestFirst } from '../../http/paging.js';
import { getPush, pushesPage } from './pushes.js';
import { subscriptionSchema } from './schema.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  subscriptionJson,
  subscriptionsPage,
  updateSubscription,
} from './service.js';

const one = 'accounts/:account_id/push_notification_subscriptions/:app/:device_id';

/** Push notification subscriptions (per device and app) and the push outbox. */
export const pushRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/push_notification_subscriptions',
    query: LISTING_QUERY,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => subscriptionsPage(core, ctx.params.account_id, q, desc), subscriptionJson, CREATED_KEY);
    },
  },
  {
    method: 'GET',
    path: one,
    handler: (ctx, core) => {
      const s = getSubscription(core, ctx.params.account_id, ctx.params.app, ctx.params.device_id);
      return { data: subscriptionJson(s), extras: { revision: s.rev } };
    },
  },
  {
    method: 'PUT',
    path: one,
    body: subscriptionSchema,
    handler: (ctx, core) => {
      const { account_id, app, device_id } = ctx.params;
      const s = createSubscription(core, account_id, app, device_id, dataObject(ctx), authOf(ctx).ownerId);
      return { data: subscriptionJson(s), extras: { revision: s.rev } };
    },
  },
  {
    method: 'POST',
    path: one,
    body: subscriptionSchema,
    handler: (ctx, core) => {
      const s = updateSubscription(core, ctx.params.account_id, ctx.params.app, ctx.params.device_id, dataObject(ctx));
      return { data: subscriptionJson(s), extras: { revision: s.rev } };
    },
  },
  {
    method: 'DELETE',
    path: one,
    handler: (ctx, core) => {
      const s = deleteSubscription(core, ctx.params.account_id, ctx.params.app, ctx.params.device_id);
      return { data: { ...subscriptionJson(s), _read_only: { deleted: true } } };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/push_notifications',
    query: NEWEST_FIRST_QUERY,
    handler: (ctx, core) => {
      const newest = newestFirst(ctx.query);
      return listingReply(ctx.query, (q) => pushesPage(core, ctx.params.account_id, q, newest), (p) => p, CREATED_KEY);
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/push_notifications/:push_id',
    handler: (ctx, core) => ({ data: getPush(core, ctx.params.account_id, ctx.params.push_id) }),
  },
];
