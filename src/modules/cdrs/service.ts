import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { MAX_RANGE_SECONDS, type TimeWindow } from '../../util/time.js';
import { getDoc } from '../documents/store.js';
import { getUser } from '../users/service.js';
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
