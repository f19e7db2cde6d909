import type { Core } from '../../core.js';
import { attemptJson, listAttempts } from '../../delivery/attempts.js';
import type { EnvelopeExtras } from '../../http/envelope.js';
import type { RequestContext } from '../../http/context.js';
import { decodeStartKey, encodeStartKey, pageSizeOf } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import { documentRoutes } from '../documents/crud.js';
import { queues } from './kind.js';
import { QUEUE_KIND } from './notify.js';

/** The notification attempts of one queue, newest first, paged by attempt id like webhook attempts. */
function notificationAttempts(ctx: RequestContext, core: Core) {
  const queue = queues.get(core, ctx.params.account_id, ctx.params.queue_id);
  const pageSize = pageSizeOf(ctx.query);
  const start = decodeStartKey(ctx.query.get('start_key'));
  const startId = typeof start === 'number' ? start : undefined;
  const { rows, nextId } = listAttempts(core, { kind: QUEUE_KIND, accountId: queue.accountId, hookId: queue.id, startId, pageSize });
  const extras: EnvelopeExtras = { page_size: rows.length };
  if (pageSize !== undefined && rows.length > 0) extras.start_key = encodeStartKey(startId ?? rows[0].id);
  if (nextId !== undefined) extras.next_start_key = encodeStartKey(nextId);
  return { data: rows.map(attemptJson), extras };
}

/** Queue documents (`/v2/accounts/{id}/queues[/{queue_id}]`) and each queue's notification attempts. */
export const queueRoutes: RouteDef[] = [
  ...documentRoutes(queues),
  { method: 'GET', path: 'accounts/:account_id/queues/:queue_id/notifications', handler: notificationAttempts },
];
