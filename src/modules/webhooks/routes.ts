import { writeRoutes, type RouteDef } from '../../http/router.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../errors.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { ATTEMPTS_QUERY, attemptsReply, CREATED_KEY, descendingOf, LISTING_QUERY, listingReply, paginate, pagingQuery } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { attemptFilterDoc, attemptJson, responsesShownTo } from '../../delivery/attempts.js';
import type { Core } from '../../core-type.js';
import { authOf } from '../../http/request.js';
import { isAccountAdmin } from '../users/service.js';
import { HOOK_TYPES } from './hook-types.js';
import { replaySchema, validateReplay, webhookSchema } from './schema.js';
import { parseInstant } from '../../util/time.js';
import { samplesOf, SAMPLES } from './samples.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  hookFilterDoc,
  hookJson,
  hookSummary,
  hookView,
  listHookAttempts,
  webhooksPage,
  reenableAutoDisabled,
  replayDeliveries,
  updateWebhook,
  type ReplayFilter,
} from './service.js';

const ACCOUNT = 'accounts/:account_id/webhooks';
const ONE = `${ACCOUNT}/:webhook_id`;
/** The bulk re-enable's body, as `reenableFlag` reads it (also taken from the envelope or query). */
const REENABLE = { type: 'object', required: ['re-enable'], properties: { 're-enable': { type: 'boolean', enum: [true] } } };

/** What a hook's answers add to its document: why the disabler turned it off. */
const DISABLE_REASON = { disable_reason: { type: 'string', description: 'why the hook was turned off after failing deliveries' } };
const HOOK = documentAnswer(webhookSchema, DISABLE_REASON);

/** A hook's JSON for this caller (secrets masked for non-admins; see hookView). */
function viewed(ctx: RequestContext, core: Core, json: Record<string, unknown>, sent?: Record<string, unknown>) {
  return hookView(json, isAccountAdmin(core, authOf(ctx)), sent);
}

/** A sample's payloads, filtered as any listing (Kazoo's `fetch_webhook_samples/2`) and paged. */
function samplesReply(ctx: RequestContext) {
  const list = samplesOf(ctx.params.sample_id);
  if (!list) throw errors.badIdentifier(ctx.params.sample_id);
  const { page, extras } = paginate(list, ctx.query);
  return { data: page, extras };
}

/** The attempts listing of an account's webhooks, or of one hook. */
function hookAttempts(ctx: RequestContext, core: Core, hookId?: string) {
  const actor = authOf(ctx);
  const shown = responsesShownTo({ admin: isAccountAdmin(core, actor), superduper: actor.isSuperduper });
  return attemptsReply(
    ctx.query,
    (q) => listHookAttempts(core, ctx.params.account_id, { ...q, hookId }),
    (r) => attemptJson(r, shown),
    (r) => attemptFilterDoc(r, attemptJson(r, shown)),
  );
}

/** An instant of a replay's `data` (Gregorian seconds, an ISO 8601 date or a duration ago), or the 400. */
function instantField(data: Record<string, unknown>, field: string): number | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  const at = parseInstant(v);
  if (at === undefined) throw errors.invalidField(field, 'type', 'Value must be Gregorian seconds, an ISO 8601 date or a duration such as 2h', { value: v });
  return at;
}

/** The replay's filter from the request's `data` (replaySchema): `since`, `until`, `hook_id`, `failed_only`. */
function replayFilterOf(ctx: RequestContext): ReplayFilter {
  const d = validateReplay(dataObject(ctx));
  return { since: instantField(d, 'since')!, until: instantField(d, 'until'), hookId: d.hook_id, failedOnly: d.failed_only };
}

function reenableFlag(ctx: RequestContext): void {
  const d = ctx.data && typeof ctx.data === 'object' && !Array.isArray(ctx.data) ? (ctx.data as Record<string, unknown>) : {};
  const v = d['re-enable'] ?? ctx.envelope['re-enable'] ?? ctx.query.get('re-enable') ?? undefined;
  if (v === undefined || v === null) {
    throw errors.invalidField('re-enable', 'required', 're-enable is required to patch collections');
  }
  if (v !== true && v !== 'true') {
    throw errors.invalidField('re-enable', 'enum', 'Value not found in enumerated list of values', { target: [true], value: v });
  }
}

/** `/v2/webhooks…` (no token), account webhooks, attempts and bulk re-enable. */
export const webhookRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'webhooks',
    auth: 'none',
    query: pagingQuery(),
    handler: (ctx) => {
      const { page, extras } = paginate(HOOK_TYPES, ctx.query);
      return { data: page, extras };
    },
  },
  { method: 'GET', path: 'webhooks/samples', auth: 'none', handler: () => ({ data: Object.keys(SAMPLES) }) },
  { method: 'GET', path: 'webhooks/samples/:sample_id', auth: 'none', query: pagingQuery(), handler: (ctx) => samplesReply(ctx) },
  { method: 'GET', path: `${ACCOUNT}/samples`, handler: () => ({ data: Object.keys(SAMPLES) }) },
  { method: 'GET', path: `${ACCOUNT}/samples/:sample_id`, query: pagingQuery(), handler: (ctx) => samplesReply(ctx) },
  {
    method: 'GET',
    path: ACCOUNT,
    query: LISTING_QUERY,
    response: listAnswer(webhookSchema, ['hook', 'name', 'uri', 'enabled'], { group: {}, ...DISABLE_REASON }),
    handler: (ctx, core) => {
      // whether the caller sees secrets is one question per request, not per hook
      const admin = isAccountAdmin(core, authOf(ctx));
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => webhooksPage(core, ctx.params.account_id, q, desc), (h) => hookView(hookSummary(h), admin), CREATED_KEY, {
        whole: (h) => hookFilterDoc(h, admin),
      });
    },
  },
  {
    method: 'PUT',
    path: ACCOUNT,
    body: webhookSchema,
    response: HOOK,
    handler: (ctx, core) => {
      const input = dataObject(ctx);
      return { data: viewed(ctx, core, hookJson(createWebhook(core, ctx.params.account_id, input)), input) };
    },
  },
  {
    method: 'PATCH',
    path: ACCOUNT,
    body: REENABLE,
    handler: (ctx, core) => {
      reenableFlag(ctx);
      reenableAutoDisabled(core, ctx.params.account_id, false);
      return { data: 'hooks updated' };
    },
  },
  {
    method: 'PATCH',
    path: 'accounts/:account_id/descendants/webhooks',
    body: REENABLE,
    handler: (ctx, core) => {
      reenableFlag(ctx);
      reenableAutoDisabled(core, ctx.params.account_id, true);
      return { data: 'hooks updated' };
    },
  },
  { method: 'GET', path: `${ACCOUNT}/attempts`, query: ATTEMPTS_QUERY, handler: (ctx, core) => hookAttempts(ctx, core) },
  // tel's extension: recorded deliveries sent again with their original event ids
  {
    method: 'PUT',
    path: `${ACCOUNT}/replay`,
    body: replaySchema,
    handler: (ctx, core) => ({ data: replayDeliveries(core, ctx.params.account_id, replayFilterOf(ctx)) }),
  },
  {
    method: 'GET',
    path: `${ONE}/attempts`,
    query: ATTEMPTS_QUERY,
    handler: (ctx, core) => hookAttempts(ctx, core, ctx.params.webhook_id),
  },
  {
    method: 'GET',
    path: ONE,
    response: HOOK,
    handler: (ctx, core) => {
      const h = getWebhook(core, ctx.params.account_id, ctx.params.webhook_id);
      return { data: viewed(ctx, core, hookJson(h)), extras: { revision: h.rev } };
    },
  },
  ...writeRoutes(ONE, (ctx, core, mode) => {
    const input = dataObject(ctx);
    const hook = updateWebhook(core, ctx.params.account_id, ctx.params.webhook_id, input, mode, ifMatchOf(ctx), authOf(ctx));
    return { data: viewed(ctx, core, hookJson(hook), input) };
  }, webhookSchema, HOOK),
  {
    method: 'DELETE',
    path: ONE,
    response: deletedAnswer(webhookSchema, DISABLE_REASON),
    handler: (ctx, core) => ({
      data: { ...viewed(ctx, core, hookJson(deleteWebhook(core, ctx.params.account_id, ctx.params.webhook_id, ifMatchOf(ctx)))), _read_only: { deleted: true } },
    }),
  },
];
