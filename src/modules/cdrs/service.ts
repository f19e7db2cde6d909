import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { MAX_RANGE_SECONDS, type TimeWindow } from '../../util/time.js';
import { getDoc } from '../documents/store.js';
import { getUser } from '../users/service.js';
import { nextTurn } from '../../util/timers.js';
import type { ConfigCategory } from '../config/categories.js';
import { cdrsPage, getCdr, interactionOf, interactionsPage, legsPage, type CdrScope, type StoredCdr } from './store.js';

/** `crossbar.cdrs`: how much of the CDRs one listing may cover. */
export const CDRS_CONFIG: ConfigCategory = {
  name: 'crossbar.cdrs',
  description: 'CDR listings: the widest time window one request may cover.',
  keys: {
    maximum_range: {
      type: 'integer',
      minimum: 1,
      default: MAX_RANGE_SECONDS,
      description: 'Seconds between `created_from` and `created_to` a CDR listing may span (also its window when neither is given, ending now).',
    },
  },
};

/** The widest window a CDR listing covers (`crossbar.cdrs` `maximum_range`). */
export function cdrMaxRange(core: Core): number {
  return Number(core.config.value('crossbar.cdrs', 'maximum_range', MAX_RANGE_SECONDS));
}

/** A CDR listing: the window it covers, the page, and which way it runs. */
export interface CdrQuery extends PageQuery<CompoundKey> {
  window: Required<TimeWindow>;
  descending: boolean;
}

/** Whose CDRs a path names: the account's, a user's or a device's (either must exist: 404). */
export function cdrScope(core: Core, accountId: string, of: { user?: string; device?: string }): CdrScope {
  if (of.user !== undefined) return { owner: getUser(core, accountId, of.user).id };
  if (of.device !== undefined) return { device: getDoc(core, 'device', accountId, of.device).id };
  return {};
}

/** One page of CDRs of a scope written in the window. */
export function listCdrs(core: Core, accountId: string, scope: CdrScope, q: CdrQuery): Page<StoredCdr, CompoundKey> {
  return cdrsPage(core, accountId, scope, q.window, q, q.descending);
}

/** One page of the account's interactions (calls, each answered as its first leg) begun in the window. */
export function listInteractions(core: Core, accountId: string, q: CdrQuery): Page<StoredCdr, CompoundKey> {
  return interactionsPage(core, accountId, q.window, q, q.descending);
}

/** A CDR by its id, as Kazoo finds it: an id that does not start with its month is not one. */
export function cdrById(core: Core, accountId: string, id: string): StoredCdr {
  if (!/^\d{6}-./.test(id)) throw errors.notFoundAs('could not find cdr with supplied id', id);
  return getCdr(core, accountId, id);
}

/**
 * The legs of an interaction, named by its id (`<Gregorian seconds>-<key>`) or by the id of one
 * of its CDRs (`YYYYMM-<call_id>`), as Kazoo's `cdrs/legs` reads either.
 */
export function listLegs(core: Core, accountId: string, id: string, q: PageQuery<CompoundKey>, descending: boolean): Page<StoredCdr, CompoundKey> {
  let interaction = id;
  if (/^\d{6}-/.test(id)) {
    const found = interactionOf(core, accountId, id);
    if (!found) throw errors.notFoundAs('could not find legs for supplied id', id);
    interaction = found;
  } else if (!/^.{11}-./.test(id)) {
    throw errors.badIdentifier(id);
  }
  return legsPage(core, accountId, interaction, q, descending);
}

/** Billable seconds by direction, then domain, then number class (`total`, and by rate name): Kazoo's `cdrs/summary`. */
export type CdrSummary = Record<'inbound' | 'outbound', Record<string, Record<string, Record<string, number>>>>;

/** The class of a dialled number, as Kazoo's `summarize_cdrs` view tells it (US-centric, as it is). */
export function summaryClassifier(number: string): string {
  if (/^\+1((?:800|888|877|866|855)\d{7})$/.test(number)) return 'tollfree_us';
  if (/^\+1(900\d{7})$/.test(number)) return 'toll_us';
  if (/^(911|933)$/.test(number)) return 'emergency';
  if (/^\+?1((?:684|264|268|242|246|441|284|345|767|809|829|849|473|671|876|664|670|787|939|869|758|784|721|868|649|340)\d{7})$/.test(number)) return 'caribbean';
  if (/^\+?1?([2-9][0-9]{2}[2-9][0-9]{6})$/.test(number)) return 'did_us';
  if (/^\+[2-9]\d{7,}$/.test(number)) return 'international';
  return 'unknown';
}

/** A leg billed to the account, as Kazoo's `summarize_cdrs` view and its limits app count them. */
export interface BilledLeg {
  direction: 'inbound' | 'outbound';
  /** the caller's domain (inbound) or the callee's (outbound) */
  domain: string;
  /** the dialled number's class (`summaryClassifier`) */
  classifier: string;
  billingSeconds: number;
  rateName?: string;
}

/**
 * What a CDR bills, when Kazoo counts it: an inbound leg from outside (no authorizing device or
 * user), an outbound leg through a carrier (a resource), never a loopback.
 */
export function billedLeg(doc: Record<string, unknown>): BilledLeg | undefined {
  const ccv = doc.custom_channel_vars as Record<string, unknown> | undefined;
  const direction = doc.call_direction;
  if (!ccv || (direction !== 'inbound' && direction !== 'outbound')) return undefined;
  if (String(doc.channel_name ?? '').includes('loopback')) return undefined;
  if (direction === 'inbound' ? ccv.authorizing_id : !ccv.resource_id) return undefined;
  const from = String(doc.from ?? '');
  const to = String(doc.to ?? '');
  const parsed = Number.parseInt(String(doc.billing_seconds ?? ''), 10);
  return {
    direction,
    domain: direction === 'inbound' ? from.slice(from.indexOf('@') + 1) : to.slice(to.indexOf('@') + 1),
    classifier: summaryClassifier(to.slice(0, Math.max(0, to.indexOf('@')))),
    billingSeconds: Number.isFinite(parsed) ? parsed : 0,
    ...(typeof ccv.rate_name === 'string' && ccv.rate_name !== '' ? { rateName: ccv.rate_name } : {}),
  };
}

/** Adds one CDR to a summary, when Kazoo's view counts it. */
export function addToSummary(summary: CdrSummary, doc: Record<string, unknown>): void {
  const leg = billedLeg(doc);
  if (!leg) return;
  const byClass = ((summary[leg.direction][leg.domain] ??= {})[leg.classifier] ??= { total: 0 });
  byClass.total += leg.billingSeconds;
  if (leg.rateName) byClass[leg.rateName] = (byClass[leg.rateName] ?? 0) + leg.billingSeconds;
}

/** CDRs one read takes before letting other requests run. */
const CDR_CHUNK = 500;

/**
 * Every CDR of the account written in the window, oldest first, read a chunk at a time with other
 * requests run between chunks, so that a month of 100,000 CDRs never holds the server.
 */
export async function forEachCdr(core: Core, accountId: string, window: Required<TimeWindow>, fn: (c: StoredCdr) => void): Promise<void> {
  let startKey: CompoundKey | undefined;
  for (;;) {
    const page = cdrsPage(core, accountId, {}, window, { pageSize: CDR_CHUNK, startKey }, false);
    for (const c of page.items) fn(c);
    if (page.nextStartKey === undefined) return;
    startKey = page.nextStartKey;
    await nextTurn();
  }
}

/** The billable seconds of the account's CDRs written in the window (bounded by `maximum_range`, as its listing). */
export async function summarizeCdrs(core: Core, accountId: string, window: Required<TimeWindow>): Promise<CdrSummary> {
  const summary: CdrSummary = { inbound: {}, outbound: {} };
  await forEachCdr(core, accountId, window, (c) => addToSummary(summary, c.doc));
  return summary;
}
