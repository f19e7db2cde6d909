import type { Core } from '../../core-type.js';
import { LISTING_QUERY, listingReply, opaqueKey, descendingOf } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { getAccount } from '../accounts/service.js';
import { getUser } from '../users/service.js';
import type { TelModule } from '../types.js';

/** One user's hotdesk login on a device, as Kazoo's `hotdesks/crossbar_listing` view answers it. */
export interface HotdeskRow {
  user_id: string;
  device_id: string;
  device_name: string | null;
}

/**
 * A page of an account's hotdesk logins (each user a device's `hotdesk.users` names), by user then
 * device, or only one user's: a range of `doc_keys` (migration 4000).
 */
export function hotdesksPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending: boolean, userId?: string): Page<HotdeskRow, CompoundKey> {
  getAccount(core, accountId);
  if (userId !== undefined) getUser(core, accountId, userId);
  return readKeysetPage<HotdeskRow>(
    core.db,
    {
      select: `SELECT k.value AS user_id, k.doc_id AS device_id, json_extract(d.doc, '$.name') AS device_name
                 FROM doc_keys k JOIN docs d ON d.id = k.doc_id`,
      where: ['k.account_id = ?', "k.field = 'hotdesk_users'", ...(userId === undefined ? [] : ['k.value = ?'])],
      args: userId === undefined ? [accountId] : [accountId, userId],
      order: ['k.value', 'k.doc_id'],
      descending,
      keyOf: (r) => [r.user_id, r.device_id],
    },
    q,
  );
}

/** A row as Kazoo answers it: the device and its name (the view's value, without the user it is keyed by). */
function hotdeskJson(r: HotdeskRow): Record<string, unknown> {
  return r.device_name === null ? { device_id: r.device_id } : { device_id: r.device_id, device_name: r.device_name };
}

const ROWS = {
  type: 'array',
  items: { type: 'object', required: ['device_id'], properties: { device_id: { type: 'string' }, device_name: { type: 'string' } } },
};
const KEY = opaqueKey('string', 'string');

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/hotdesks',
    query: LISTING_QUERY,
    response: ROWS,
    handler: (ctx, core) => listingReply(ctx.query, (q) => hotdesksPage(core, ctx.params.account_id, q, descendingOf(ctx.query)), hotdeskJson, KEY),
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id/hotdesks',
    query: LISTING_QUERY,
    response: ROWS,
    handler: (ctx, core) =>
      listingReply(ctx.query, (q) => hotdesksPage(core, ctx.params.account_id, q, descendingOf(ctx.query), ctx.params.user_id), hotdeskJson, KEY),
  },
];

/** `/v2/accounts/{id}/hotdesks`: Kazoo's `cb_hotdesks`, the devices users are logged in to, from the devices' `hotdesk.users`. */
export const hotdesksModule: TelModule = { name: 'hotdesks', endpoints: ['hotdesks'], routes };
