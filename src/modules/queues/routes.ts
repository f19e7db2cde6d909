import type { Core } from '../../core-type.js';
import { attemptJson } from '../../delivery/attempts.js';
import type { RequestContext } from '../../http/context.js';
import { attemptsReply } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import { documentRoutes } from '../documents/crud.js';
import { queues } from './kind.js';
import { listQueueNotifications } from './service.js';

/** The notification attempts of one queue, listed like webhook attempts. */
function notificationAttempts(ctx: RequestContext, core: Core) {
  return attemptsReply(ctx.query, (q) => listQueueNotifications(core, ctx.params.account_id, ctx.params.queue_id, q), attemptJson);
}

/** Queue documents (`/v2/accounts/{id}/queues[/{queue_id}]`) and each queue's notification attempts. */
export const queueRoutes: RouteDef[] = [
  ...documentRoutes(queues),
  { method: 'GET', path: 'accounts/:account_id/queues/:queue_id/notifications', handler: notificationAttempts },
];
