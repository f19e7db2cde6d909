import type { Core } from '../../core-type.js';
import { payloadJson, type PlatformEvent } from '../../delivery/bus.js';
import { enqueueDelivery, type DeliveryBody, type DeliveryFormat, type DeliveryInput, type DeliveryMethod } from '../../delivery/outbox.js';
import { stmt } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';
import { findAccount } from '../accounts/service.js';
import { ACTION_ALIASES, CHANNEL_HOOKS } from './hook-types.js';
import { HOOKS_BY_EVENT_CACHE, type Hook, type HookRow } from './store.js';
import { clusterId } from './cluster.js';
import { withinBounds } from './schema.js';

/** The delivery kind webhooks enqueue under. */
export const WEBHOOK_KIND = 'webhook';

const docs = new Map<string, { rev: string; doc: Record<string, unknown> }>();

function docOf(r: Pick<HookRow, 'id' | 'rev' | 'doc'>): Record<string, unknown> {
  const hit = docs.get(r.id);
  // Stryker disable next-line ConditionalExpression: parsing the document again answers the same
  if (hit?.rev === r.rev) return hit.doc;
  const doc = withinBounds(JSON.parse(r.doc) as Record<string, unknown>);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the cache's cap shows in no answer
  if (docs.size > 50_000) docs.clear();
  // Stryker disable next-line ObjectLiteral,CallExpression: an entry without its revision, or none, is never used: the document is parsed again
  docs.set(r.id, { rev: r.rev, doc });
  return doc;
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** Modifiers: every pair must be present in the payload and equal (a list value: one of). */
export function modifiersMatch(modifiers: Record<string, unknown> | undefined, payload: Record<string, unknown>, skip: Set<string>): boolean {
  if (!modifiers) return true;
  for (const [key, wanted] of Object.entries(modifiers)) {
    if (skip.has(key)) continue;
    if (!(key in payload)) return false;
    const actual = String(payload[key]);
    if (!asList(wanted).some((w) => String(w) === actual)) return false;
  }
  return true;
}

const OBJECT_FILTERS = new Set(['action', 'type', 'types']);
const NOTIFICATION_FILTERS = new Set(['type']);

function filterAllows(value: unknown, actual: unknown, aliases: Record<string, string> = {}): boolean {
  if (value === undefined || value === null) return true;
  const list = asList(value).map((v) => aliases[String(v)] ?? String(v));
  return list.length === 0 || list.includes('all') || list.includes(String(actual));
}

/** `object` hooks: `action`, `type` and `types` from `modifiers` or `custom_data`; a missing one means all. */
function objectMatches(doc: Record<string, unknown>, payload: Record<string, unknown>): boolean {
  for (const src of [doc.modifiers, doc.custom_data] as (Record<string, unknown> | undefined)[]) {
    if (!src) continue;
    if (!filterAllows(src.action, payload.action, ACTION_ALIASES)) return false;
    if (!filterAllows(src.type, payload.type) || !filterAllows(src.types, payload.type)) return false;
  }
  return true;
}

/** Whether a hook wants an event, given the hook's document. */
export function hookWants(doc: Record<string, unknown>, event: PlatformEvent): boolean {
  const payload = event.payload;
  if (CHANNEL_HOOKS.has(event.type) && doc.include_internal_legs === false && payload.is_internal_leg === true) return false;
  const modifiers = doc.modifiers as Record<string, unknown> | undefined;
  if (event.type === 'object') return objectMatches(doc, payload) && modifiersMatch(modifiers, payload, OBJECT_FILTERS);
  if (event.type === 'notifications') {
    const custom = doc.custom_data as Record<string, unknown> | undefined;
    return filterAllows(custom?.type ?? modifiers?.type, payload.event_name) && modifiersMatch(modifiers, payload, NOTIFICATION_FILTERS);
  }
  return modifiersMatch(modifiers, payload, new Set());
}

/** The payload a hook receives: the event's, with `custom_data` merged over it (filter keys excepted). */
export function hookPayload(doc: Record<string, unknown>, event: PlatformEvent): Record<string, unknown> {
  const custom = doc.custom_data as Record<string, unknown> | undefined;
  if (!custom) return event.payload;
  const skip = event.type === 'object' ? OBJECT_FILTERS : event.type === 'notifications' ? NOTIFICATION_FILTERS : undefined;
  const out = { ...event.payload };
  for (const [k, v] of Object.entries(custom)) if (!skip?.has(k)) out[k] = v;
  return out;
}

type HookHead = Pick<HookRow, 'id' | 'account_id' | 'rev' | 'doc' | 'previous_secret' | 'previous_secret_until'>;

/**
 * How a hook's deliveries are signed and paced: its secret, a rotated-out one while its grace
 * lasts (deliveries then carry two signatures), and its `rate_limit_per_s`.
 */
export function deliveryTraits(
  doc: Record<string, unknown>,
  previous: Hook['previousSecret'],
  now: number = Date.now(),
): Pick<DeliveryInput, 'secret' | 'previousSecret' | 'ratePerS'> {
  const out: Pick<DeliveryInput, 'secret' | 'previousSecret' | 'ratePerS'> = {};
  if (typeof doc.secret === 'string') {
    out.secret = doc.secret;
    if (previous && previous.until > now) out.previousSecret = previous;
  }
  if (typeof doc.rate_limit_per_s === 'number') out.ratePerS = doc.rate_limit_per_s;
  return out;
}

/**
 * The enabled hooks of an event type that an account's events reach: its own, and its ancestors'
 * with `include_subaccounts`. Read through a row cache (every simulated call asks twice or more).
 */
function hooksFor(core: Core, type: string, accountId: string): HookHead[] {
  return rowCache<HookHead[]>(core.db, HOOKS_BY_EVENT_CACHE).get(`${type} ${accountId}`, () =>
    stmt(
      core.db,
      `SELECT id, account_id, rev, doc, previous_secret, previous_secret_until FROM webhooks WHERE hook = ? AND enabled = 1
         AND (account_id = ? OR (include_subaccounts = 1 AND account_id IN (SELECT value FROM json_each(?))))`,
    ).all(type, accountId, JSON.stringify(findAccount(core, accountId)?.tree ?? [])) as unknown as HookHead[],
  )!;
}

const sharedBodies = new WeakMap<PlatformEvent, string>();

/**
 * What a hook's delivery carries: the event's payload with `custom_data` merged over it, and the
 * `cluster_id` Kazoo sets last. Without `custom_data`, every hook of the event shares one body:
 * the event's JSON with the cluster id appended (the payload is not copied nor serialised again;
 * a copy was a tenth of a simulated call's instructions).
 */
function hookBody(core: Core, doc: Record<string, unknown>, event: PlatformEvent): DeliveryBody {
  const cluster = clusterId(core);
  const payload = hookPayload(doc, event);
  if (payload !== event.payload || Object.hasOwn(payload, 'cluster_id')) return { payload: { ...payload, cluster_id: cluster } };
  let json = sharedBodies.get(event);
  // Stryker disable next-line ConditionalExpression: a cache: making the body again gives the same text
  if (json === undefined) {
    const text = payloadJson(event);
    // appended last, as JSON.stringify of the payload with the key added would place it
    // Stryker disable next-line ConditionalExpression,StringLiteral: a guard; every event's payload has fields (its account_id at least)
    json = `${text === '{}' ? '{' : `${text.slice(0, -1)},`}"cluster_id":${JSON.stringify(cluster)}}`;
    // Stryker disable next-line CallExpression: a cache, as above
    sharedBodies.set(event, json);
  }
  return { payloadJson: json };
}

const headersOf = new WeakMap<HookHead, { headers: Record<string, string>; headersJson: string }>();

/** The headers a hook's deliveries carry, and their JSON: made once per hook row read. */
function hookHeaders(r: HookHead): { headers: Record<string, string>; headersJson: string } {
  let h = headersOf.get(r);
  if (!h) {
    const headers = { 'X-Hook-ID': r.id, 'X-Account-ID': r.account_id };
    headersOf.set(r, (h = { headers, headersJson: JSON.stringify(headers) }));
  }
  return h;
}

/**
 * The bus subscriber: finds the enabled hooks of the event's account (and of its ancestors
 * with `include_subaccounts`) that want the event and writes one outbox delivery for each,
 * inside the publisher's transaction.
 */
export function enqueueMatchingHooks(core: Core, event: PlatformEvent): number {
  const rows = hooksFor(core, event.type, event.accountId);
  let n = 0;
  for (const r of rows) {
    const doc = docOf(r);
    if (!hookWants(doc, event)) continue;
    const method = (doc.http_verb ?? 'post') as DeliveryMethod;
    enqueueDelivery(core, {
      kind: WEBHOOK_KIND,
      accountId: r.account_id,
      sourceId: r.id,
      sourceName: String(doc.name ?? ''),
      eventName: event.type,
      url: String(doc.uri),
      method,
      format: (doc.format ?? 'form-data') as DeliveryFormat,
      ...hookBody(core, doc, event),
      retries: Number(doc.retries ?? 2),
      ...hookHeaders(r),
      ...deliveryTraits(doc, r.previous_secret ? { secret: r.previous_secret, until: r.previous_secret_until ?? 0 } : null),
    });
    n++;
  }
  return n;
}
