import type { Core } from '../../core-type.js';
import { documentAnswer } from '../../http/answers.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { authOf, dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { compileValidator } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { getAccount } from '../accounts/service.js';
import { docsPage, filterDoc, type StoredDoc } from '../documents/store.js';
import { queues } from '../queues/kind.js';
import { userSchema } from '../users/schema.js';
import { checkUserWrite, getUser, updateUser, userJson, type Actor } from '../users/service.js';
import type { TelModule } from '../types.js';

/** An agent logging in to or out of a queue: Kazoo's `queue_update` schema. */
export const queueUpdateSchema = defineSchema('queue_update', {
  type: 'object',
  required: ['action', 'queue_id'],
  properties: {
    action: { type: 'string', enum: ['login', 'logout'] },
    queue_id: { type: 'string', minLength: 1, maxLength: 128 },
  },
});
const validateQueueUpdate = compileValidator(queueUpdateSchema);

/**
 * A page of an account's agents: its users with `queues` (Kazoo's `agents/crossbar_listing`),
 * oldest first; one range of `docs_agents` (migration 4000).
 */
export function agentsPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending: boolean): Page<StoredDoc, CompoundKey> {
  return docsPage(core, 'user', accountId, q, descending, { where: ["json_type(doc, '$.queues') IN ('array', 'object')"], args: [], index: 'docs_agents' });
}

/** An agent's row: its names and queues. */
function agentRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: d.id };
  for (const f of ['first_name', 'last_name', 'queues']) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  return row;
}

/** The queues an agent answers (its `queues`), `[]` when none. */
export function agentQueues(core: Core, accountId: string, userId: string): unknown[] {
  const q = getUser(core, accountId, userId).doc.queues;
  return Array.isArray(q) ? q : [];
}

/**
 * Logs an agent in to a queue (the queue joins its `queues`) or out of it (it leaves them), as
 * Kazoo's `queue_status`; answers the agent's queues. The agent themself or an admin may.
 */
export function updateAgentQueues(core: Core, actor: Actor, accountId: string, userId: string, input: Record<string, unknown>): unknown[] {
  const update = validateQueueUpdate({ ...input });
  const queueId = String(update.queue_id);
  queues.get(core, accountId, queueId);
  const current = agentQueues(core, accountId, userId);
  const has = current.includes(queueId);
  const next = update.action === 'login' ? (has ? current : [queueId, ...current]) : has ? current.filter((q) => q !== queueId) : current;
  checkUserWrite(core, actor, accountId, { op: 'update', userId, input: { queues: next } });
  if (next !== current) updateUser(core, accountId, userId, { queues: next }, 'merge');
  return next;
}

/**
 * What tel knows of agents' presence in the ACD: nothing, since queue calls are simulated without
 * agent states. Kazoo answers `unknown` for an agent whose status it never logged, `{}` for an
 * account without statuses or statistics.
 */
const UNKNOWN_STATUS = 'unknown';

const BASE = 'accounts/:account_id/agents';
const QUEUES = { type: 'array', items: { type: 'string', description: 'a queue the agent answers' } };
const STATUS = { type: 'string', description: "the agent's last status (`unknown`: none logged)" };

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: BASE,
    query: LISTING_QUERY,
    response: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, first_name: {}, last_name: {}, queues: {} } },
    },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => agentsPage(core, ctx.params.account_id, q, desc), agentRow, CREATED_KEY, { whole: filterDoc });
    },
  },
  {
    method: 'GET',
    path: `${BASE}/:user_id`,
    response: documentAnswer(userSchema),
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      return { data: userJson(u), extras: { revision: u.rev } };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/:user_id/queue_status`,
    response: QUEUES,
    handler: (ctx, core) => ({ data: agentQueues(core, ctx.params.account_id, ctx.params.user_id) }),
  },
  {
    method: 'POST',
    path: `${BASE}/:user_id/queue_status`,
    body: queueUpdateSchema,
    response: QUEUES,
    handler: (ctx, core) => ({ data: updateAgentQueues(core, authOf(ctx), ctx.params.account_id, ctx.params.user_id, dataObject(ctx)) }),
  },
  {
    method: 'GET',
    path: `${BASE}/status`,
    response: { type: 'object', description: 'statuses by agent: none logged' },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: {} };
    },
  },
  ...[`${BASE}/status/:user_id`, `${BASE}/:user_id/status`].map(
    (path): RouteDef => ({
      method: 'GET',
      path,
      response: STATUS,
      handler: (ctx, core) => {
        getUser(core, ctx.params.account_id, ctx.params.user_id);
        return { data: UNKNOWN_STATUS };
      },
    }),
  ),
  {
    method: 'GET',
    path: `${BASE}/stats`,
    response: { type: 'object', description: 'calls by agent and queue: none recorded' },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: {} };
    },
  },
];

/**
 * `/v2/accounts/{id}/agents`: Kazoo's `cb_agents` (acdc) — the users who answer queues, and the
 * queues they log in to. Statuses and statistics are those of an ACD that logged none.
 */
export const agentsModule: TelModule = { name: 'agents', endpoints: ['agents'], routes };
