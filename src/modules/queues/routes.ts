import type { Core } from '../../core-type.js';
import { attemptsListing } from '../../delivery/listing.js';
import type { RequestContext } from '../../http/context.js';
import type { RouteDef } from '../../http/router.js';
import { documentRoutes } from '../documents/crud.js';
import { queues } from './kind.js';
import { QUEUE_KIND } from './notify.js';

/** The notification attempts of one queue, listed like webhook attempts. */
function notificationAttempts(ctx: RequestContext, core: Core) {
  const queue = queues.get(core, ctx.params.account_id, ctx.params.queue_id);
  return attemptsListing(ctx, core, { kind: QUEUE_KIND, accountId: queue.accountId, hookId: queue.id });
}

/** Queue documents (`/v2/accounts/{id}/queues[/{queue_id}]`) and each queue's notification attempts. */
export const queueRoutes: RouteDef[] = [
  ...documentRoutes(queues),
  { method: 'GET', path: 'accounts/:account_id/queues/:queue_id/notifications', handler: notificationAttempts },
];
