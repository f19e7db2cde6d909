import type { RequestContext } from '../../http/context.js';
import { authOf } from '../../http/request.js';
import { boundedWindowOf, BOUNDED_QUERY, listingReply, newestFirst, NEWEST_FIRST_QUERY, opaqueKey, CREATED_KEY } from '../../http/paging.js';
import type { QueryParam, RouteDef } from '../../http/router.js';
import { errors } from '../../errors.js';
import type { Core } from '../../core-type.js';
import type { JsonSchema } from '../../schema/validate.js';
import { cdrRow, CDR_COLUMNS, RESELLER_COLUMNS } from './rows.js';
import { cdrById, cdrMaxRange, cdrScope, listCdrs, listInteractions, listLegs, type CdrQuery } from './service.js';
import type { StoredCdr } from './store.js';
import { wholeDoc } from '../../util/doc-filter.js';

/** A CDR as a listing's filters see it: the whole record, with the private fields Kazoo keeps beside it. */
function cdrFilterDoc(c: StoredCdr): Record<string, unknown> {
  return wholeDoc({ ...c.doc, id: c.id }, { id: c.id, type: 'cdr', created: c.created, modified: c.created });
}

const UTC_OFFSET: QueryParam = {
  name: 'utc_offset',
  description: 'seconds added to the `datetime` column (a local time instead of UTC)',
  schema: { type: 'integer' },
};

/** The keys of interactions and legs: `[Gregorian seconds, id]` and `[microseconds, id]`. */
const NUMBER_ID_KEY = opaqueKey('number', 'string');

const ROW: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'call_id', 'timestamp', 'interaction_id'],
    properties: Object.fromEntries(
      [...CDR_COLUMNS, ...RESELLER_COLUMNS].map((c) => [
        c,
        c === 'media_recordings' ? { type: 'array', items: { type: 'string' } } : c === 'duration_seconds' || c === 'billing_seconds' ? { type: ['integer', 'string'] } : { type: 'string' },
      ]),
    ),
  },
};

/** A CDR as stored: the leg's fields (Kazoo's `cdrs` schema) and its id. */
const CDR: JsonSchema = {
  type: 'object',
  required: ['id', 'call_id', 'call_direction', 'timestamp', 'interaction_id'],
  properties: {
    id: { type: 'string', description: '`YYYYMM-<call_id>`' },
    call_id: { type: 'string' },
    call_direction: { type: 'string', enum: ['inbound', 'outbound'] },
    billing_seconds: { type: 'integer' },
    duration_seconds: { type: 'integer' },
    ringing_seconds: { type: 'integer' },
    timestamp: { type: 'integer', description: 'when the leg ended (Gregorian seconds)' },
    channel_created_time: { type: 'integer', description: 'when the leg started (unix microseconds)' },
    hangup_cause: { type: 'string' },
    hangup_code: { type: 'string' },
    interaction_id: { type: 'string' },
    custom_channel_vars: { type: 'object' },
  },
};

/** `utc_offset`: a number, or the 404 Kazoo answers. */
function utcOffsetOf(query: URLSearchParams): number | undefined {
  const raw = query.get('utc_offset');
  if (raw === null) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw errors.notFoundAs('utc_offset must be a number');
  return n;
}

function cdrQuery(ctx: RequestContext, core: Core): CdrQuery {
  return { window: boundedWindowOf(ctx.query, cdrMaxRange(core)), descending: newestFirst(ctx.query) };
}

/** The listing row of each CDR, as the caller may see it (a reseller's token sees the reseller's columns). */
function rowOf(ctx: RequestContext): (c: StoredCdr) => Record<string, unknown> {
  const opts = { reseller: authOf(ctx).account.reseller, utcOffset: utcOffsetOf(ctx.query) };
  return (c) => cdrRow(c.id, c.doc, opts);
}

/** A listing of CDRs: the account's, a user's or a device's. */
function cdrListing(path: string, of: (ctx: RequestContext) => { user?: string; device?: string }): RouteDef {
  return {
    method: 'GET',
    path,
    query: [...BOUNDED_QUERY, UTC_OFFSET],
    response: ROW,
    handler: (ctx, core) => {
      const account = ctx.params.account_id;
      const scope = cdrScope(core, account, of(ctx));
      const q = cdrQuery(ctx, core);
      return listingReply(ctx.query, (p) => listCdrs(core, account, scope, { ...q, ...p }), rowOf(ctx), CREATED_KEY, { timeRange: true, whole: cdrFilterDoc });
    },
  };
}

export const cdrRoutes: RouteDef[] = [
  cdrListing('accounts/:account_id/cdrs', () => ({})),
  cdrListing('accounts/:account_id/users/:user_id/cdrs', (ctx) => ({ user: ctx.params.user_id })),
  cdrListing('accounts/:account_id/devices/:device_id/cdrs', (ctx) => ({ device: ctx.params.device_id })),
  {
    method: 'GET',
    path: 'accounts/:account_id/cdrs/interaction',
    query: [...BOUNDED_QUERY, UTC_OFFSET],
    response: ROW,
    handler: (ctx, core) => {
      const account = ctx.params.account_id;
      const q = cdrQuery(ctx, core);
      return listingReply(ctx.query, (p) => listInteractions(core, account, { ...q, ...p }), rowOf(ctx), NUMBER_ID_KEY, { timeRange: true, whole: cdrFilterDoc });
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/cdrs/legs/:interaction_id',
    query: NEWEST_FIRST_QUERY,
    response: { type: 'array', items: CDR },
    handler: (ctx, core) => {
      const account = ctx.params.account_id;
      const desc = newestFirst(ctx.query);
      return listingReply(ctx.query, (p) => listLegs(core, account, ctx.params.interaction_id, p, desc), (c) => ({ ...c.doc, id: c.id }), NUMBER_ID_KEY, { whole: cdrFilterDoc });
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/cdrs/:cdr_id',
    response: CDR,
    handler: (ctx, core) => {
      const c = cdrById(core, ctx.params.account_id, ctx.params.cdr_id);
      return { data: { ...c.doc, id: c.id } };
    },
  },
];
