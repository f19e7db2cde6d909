import type { Core } from '../../core-type.js';
import { attemptFilterDoc, attemptJson, responsesShownTo } from '../../delivery/attempts.js';
import type { RequestContext } from '../../http/context.js';
import { ATTEMPTS_QUERY, attemptsReply } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import { authOf } from '../../http/request.js';
import { isAccountAdmin } from '../users/service.js';
import { documentRoutes } from '../documents/routes.js';
import { publicDoc } from '../documents/store.js';
import { documentAnswer } from '../../http/answers.js';
import { queues } from './kind.js';
import { queueSchema } from './schema.js';
import { listQueueNotifications } from './service.js';
import { checkRosterWrite, listRoster, setRoster } from './roster.js';

const ROSTER = 'accounts/:account_id/queues/:queue_id/roster';
const USER_IDS = { type: 'array', items: { type: 'string' } };
/** A roster change answers the queue with its `agents`. */
const rosterAnswer = documentAnswer(queueSchema, { agents: USER_IDS }, ['agents']);

/**
 * `GET …/queues/{id}`: the queue and its `agents` (its roster), as Kazoo's `cb_queues:read/2`
 * answers it; its revision is the answer's hash, since the agents are not the document's.
 */
function queueWithAgents(route: RouteDef): RouteDef {
  return {
    ...route,
    response: rosterAnswer,
    handler: (ctx, core) => ({
      data: { ...publicDoc(queues.get(core, ctx.params.account_id, ctx.params.doc_id)), agents: listRoster(core, ctx.params.account_id, ctx.params.doc_id) },
    }),
  };
}

/** The notification attempts of one queue, listed like webhook attempts. */
function notificationAttempts(ctx: RequestContext, core: Core) {
  const actor = authOf(ctx);
  const shown = responsesShownTo({ admin: isAccountAdmin(core, actor), superduper: actor.isSuperduper });
  return attemptsReply(
    ctx.query,
    (q) => listQueueNotifications(core, ctx.params.account_id, ctx.params.queue_id, q),
    (r) => attemptJson(r, shown),
    (r) => attemptFilterDoc(r, attemptJson(r, shown)),
  );
}

/** Queue documents (`/v2/accounts/{id}/queues[/{queue_id}]`), each queue's notification attempts and its roster. */
export const queueRoutes: RouteDef[] = [
  ...documentRoutes(queues).map((r) => (r.method === 'GET' && r.path.endsWith('/:doc_id') ? queueWithAgents(r) : r)),
  { method: 'GET', path: 'accounts/:account_id/queues/:queue_id/notifications', query: ATTEMPTS_QUERY, handler: notificationAttempts },
  // the users who answer the queue (Kazoo's agents), by id
  {
    method: 'GET',
    path: ROSTER,
    response: USER_IDS,
    handler: (ctx, core) => {
      const ids = listRoster(core, ctx.params.account_id, ctx.params.queue_id);
      return { data: ids, extras: { page_size: ids.length } };
    },
  },
  {
    method: 'POST',
    path: ROSTER,
    body: { ...USER_IDS, description: 'the ids of the users who answer the queue: the whole roster' },
    response: rosterAnswer,
    handler: (ctx, core) => {
      checkRosterWrite(core, authOf(ctx));
      return { data: setRoster(core, ctx.params.account_id, ctx.params.queue_id, ctx.data ?? []) };
    },
  },
  {
    method: 'DELETE',
    path: ROSTER,
    response: rosterAnswer,
    handler: (ctx, core) => {
      checkRosterWrite(core, authOf(ctx));
      return { data: setRoster(core, ctx.params.account_id, ctx.params.queue_id, []) };
    },
  },
];
