import type { Core } from '../../core-type.js';
import type { RequestContext } from '../../http/context.js';
import { ApiError, errors } from '../../errors.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { isAccountAdmin } from '../users/service.js';
import { escapeControls } from '../../util/text.js';
import {
  CREATED_KEY,
  descendingOf,
  integerParam,
  LISTING_QUERY,
  listingReply,
  newestFirst,
  orderQuery,
  pagingQuery,
  TIME_WINDOW_QUERY,
  timeWindowOf,
  type KeyCodec,
} from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { ref } from '../../schema/registry.js';
import { jobFilterDoc, jobSummary } from '../../jobs/store.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import { masterAccount } from '../accounts/service.js';
import { jobSchema, resourceSchema } from './schema.js';
import { createCollection, updateCollection } from './collections.js';
import {
  createResource,
  deleteResource,
  getResource,
  resourceFilterDoc,
  resourceJson,
  resourcesPage,
  resourceSummary,
  updateResource,
  withMaskedPasswords,
  type Scope,
} from './service.js';
import { createAccountJob, createJobFromBody, jobDetailOf, listAccountJobs } from './jobs.js';
import { textPieces } from '../../jobs/store.js';

type ScopeOf = (ctx: RequestContext) => Scope;

/** A collection creation: resources (each may choose its `id`). */
const NEW_COLLECTION = { type: 'array', items: ref(resourceSchema) };

/** A collection update: partial resources, each with its `id` (an object keyed by id is taken too). */
const CHANGED_COLLECTION = {
  type: 'array',
  items: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...(resourceSchema.properties as object) } },
};

/** What a resource's answers add to its document: where it is kept. */
const SCOPE = { type: { type: 'string', enum: ['local', 'global'] } };
const answer = documentAnswer(resourceSchema, SCOPE);

/** The parameters of the jobs listing. */
const JOBS_QUERY = [...TIME_WINDOW_QUERY, ...pagingQuery({ type: 'integer', minimum: 0 }), ...orderQuery('newest first', 'oldest first', true)];

/** Jobs are listed by their sequence number, which their `start_key` is. */
const JOB_KEY: KeyCodec<number> = { read: (q) => integerParam(q, 'start_key'), show: (k) => k };

const accountScope: ScopeOf = (ctx) => ({ accountId: ctx.params.account_id });
const globalScope: ScopeOf = () => ({});

/** The account whose inventory a job fills: the path's, or the master account for global requests (as Kazoo). */
function jobAccount(core: Core, scope: Scope): string {
  if (scope.accountId) return scope.accountId;
  const master = masterAccount(core);
  if (!master) throw errors.notFound();
  return master.id;
}

/** Every route of one resources endpoint (`resources`, or a deprecated alias) under `base`. */
function routesAt(base: string, scopeOf: ScopeOf, superduper: boolean): RouteDef[] {
  const one = `${base}/:resource_id`;
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: base,
      query: LISTING_QUERY,
      response: listAnswer(resourceSchema, ['name', 'enabled', 'weight_cost'], { weight: { type: 'integer', description: 'the seed\'s name of weight_cost' } }),
      handler: (ctx, core) => {
        const desc = descendingOf(ctx.query);
        const admin = isAccountAdmin(core, authOf(ctx));
        return listingReply(ctx.query, (q) => resourcesPage(core, scopeOf(ctx), q, desc), resourceSummary, CREATED_KEY, { whole: (d) => resourceFilterDoc(d, admin) });
      },
    },
    { method: 'PUT', path: base, body: resourceSchema, response: answer, handler: (ctx, core) => ({ data: resourceJson(createResource(core, scopeOf(ctx), dataObject(ctx))) }) },
    {
      method: 'GET',
      path: one,
      response: answer,
      handler: (ctx, core) => {
        const d = getResource(core, scopeOf(ctx), ctx.params.resource_id);
        // gateway passwords are for the account's admins, as webhook secrets are
        const json = isAccountAdmin(core, authOf(ctx)) ? resourceJson(d) : withMaskedPasswords(resourceJson(d));
        return { data: json, extras: { revision: d.rev } };
      },
    },
    ...writeRoutes(one, (ctx, core, mode) => ({
      data: resourceJson(updateResource(core, scopeOf(ctx), ctx.params.resource_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }), resourceSchema, answer),
    {
      method: 'DELETE',
      path: one,
      response: deletedAnswer(resourceSchema, SCOPE),
      handler: (ctx, core) => ({
        data: { ...resourceJson(deleteResource(core, scopeOf(ctx), ctx.params.resource_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      }),
    },
    {
      method: 'PUT',
      path: `${base}/collection`,
      body: NEW_COLLECTION,
      errors: [200],
      handler: (ctx, core) => {
        const result = createCollection(core, scopeOf(ctx), ctx.data);
        // 201 only when something was created; a collection refused item by item is a plain 200.
        return { status: Object.keys(result.successes).length ? 201 : 200, data: result };
      },
    },
    { method: 'POST', path: `${base}/collection`, body: CHANGED_COLLECTION, handler: (ctx, core) => ({ data: updateCollection(core, scopeOf(ctx), ctx.data) }) },
    {
      method: 'GET',
      path: `${base}/jobs`,
      query: JOBS_QUERY,
      handler: (ctx, core) => {
        const accountId = jobAccount(core, scopeOf(ctx));
        const window = timeWindowOf(ctx.query);
        const descending = newestFirst(ctx.query);
        return listingReply(ctx.query, (q) => listAccountJobs(core, { accountId, ...window, descending, ...q }), jobSummary, JOB_KEY, { whole: jobFilterDoc, timeRange: true });
      },
    },
    {
      method: 'PUT',
      path: `${base}/jobs`,
      body: jobSchema,
      unparsedLargeBody: true,
      handler: async (ctx, core) => {
        const accountId = jobAccount(core, scopeOf(ctx));
        if (ctx.unparsedBody) return { stream: { pieces: textPieces(await createJobFromBody(core, accountId, ctx.auth?.accountId, ctx.unparsedBody)) } };
        return { data: createAccountJob(core, accountId, ctx.auth?.accountId, dataObject(ctx)) };
      },
    },
    {
      method: 'GET',
      path: `${base}/jobs/:job_id`,
      handler: (ctx, core) => ({ stream: { pieces: jobDetailOf(core, jobAccount(core, scopeOf(ctx)), ctx.params.job_id) } }),
    },
  ];
  return superduper ? routes.map((r) => ({ ...r, superduper: true })) : routes;
}

/** Response headers saying an endpoint is deprecated and what replaces it. */
export function deprecationHeaders(endpoint: string, successor: string): Record<string, string> {
  return {
    Deprecation: 'true',
    Warning: `299 tel "${endpoint} is deprecated: use ${successor}"`,
    Link: `<${successor}>; rel="successor-version"`,
  };
}

/** Wraps a route of a deprecated alias: same behaviour, plus the headers and a log line. */
function deprecated(endpoint: string, successor: string, route: RouteDef): RouteDef {
  const headers = deprecationHeaders(endpoint, successor);
  return {
    ...route,
    handler: async (ctx, core) => {
      process.stderr.write(`tel: deprecated endpoint ${endpoint} used (${ctx.method} ${escapeControls(ctx.url.split('?')[0])}); use ${successor}\n`);
      try {
        const reply = await route.handler(ctx, core);
        return { ...reply, headers: { ...(reply.headers ?? {}), ...headers } };
      } catch (err) {
        if (err instanceof ApiError) throw new ApiError(err.status, err.kazooMessage, err.data, { ...err.headers, ...headers });
        throw err;
      }
    },
  };
}

/** Account resources, global resources (super-duper admin only) and the deprecated aliases. */
export const resourceRoutes: RouteDef[] = [
  ...routesAt('accounts/:account_id/resources', accountScope, false),
  ...routesAt('resources', globalScope, true),
  ...routesAt('accounts/:account_id/local_resources', accountScope, false).map((r) =>
    deprecated('local_resources', '/v2/accounts/{account_id}/resources', r),
  ),
  ...routesAt('global_resources', globalScope, true).map((r) => deprecated('global_resources', '/v2/resources', r)),
  ...routesAt('accounts/:account_id/global_resources', globalScope, true).map((r) =>
    deprecated('global_resources', '/v2/resources', r),
  ),
];
