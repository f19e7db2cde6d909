import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply, NEWEST_FIRST_QUERY, newestFirst } from '../../http/paging.js';
import { getPush, pushesPage } from './pushes.js';
import { wholeDoc } from '../../util/doc-filter.js';
import { gregorianToUnixMs } from '../../util/time.js';
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
      return listingReply(ctx.query, (q) => subscriptionsPage(core, ctx.params.account_id, q, desc), subscriptionJson, CREATED_KEY, {
        whole: (s) => wholeDoc(subscriptionJson(s), { id: s.id, type: 'push_subscription', rev: s.rev, accountId: s.accountId, created: s.created, modified: s.modified }),
      });
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
      return listingReply(ctx.query, (q) => pushesPage(core, ctx.params.account_id, q, newest), (p) => p, CREATED_KEY, {
        // a record keeps when it was made as its `timestamp`
        whole: (p) => {
          const at = typeof p.timestamp === 'number' ? gregorianToUnixMs(p.timestamp) : undefined;
          return wholeDoc(p, { id: String(p.id), type: 'push_notification', accountId: ctx.params.account_id, created: at, modified: at });
        },
      });
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/push_notifications/:push_id',
    handler: (ctx, core) => ({ data: getPush(core, ctx.params.account_id, ctx.params.push_id) }),
  },
];
