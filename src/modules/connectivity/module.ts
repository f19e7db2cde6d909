import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { documentAnswer } from '../../http/answers.js';
import { isObject } from '../../util/json.js';
import { stmt } from '../../store/db.js';
import { getAccount } from '../accounts/service.js';
import { documentService } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import { filterDoc, publicDoc, type StoredDoc } from '../documents/store.js';
import { normalizeSystemNumber } from '../numbers/converters.js';
import type { Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { connectivitySchema } from './schema.js';

/** Connectivity: PBXs that reach the platform as trunks (Kazoo's trunkstore), by the servers and numbers they use. */
export const connectivity = documentService({
  kind: 'connectivity',
  endpoint: 'connectivity',
  summary: [],
  schema: connectivitySchema,
  // Kazoo writes the account's realm in, the realm the servers authenticate in (an `account` that is no object is the schema's to refuse)
  prepare: (core, accountId, doc) => {
    if (doc.account === undefined || isObject(doc.account)) doc.account = { ...(doc.account ?? {}), auth_realm: getAccount(core, accountId).realm };
  },
});

/** The numbers a connectivity document routes: the keys of its servers' `DIDs`. */
function numbersOf(doc: Record<string, unknown>): string[] {
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  return servers.flatMap((s) => (isObject(s) && isObject(s.DIDs) ? Object.keys(s.DIDs) : []));
}

/**
 * The caller may route only numbers of its account or of accounts below it (Kazoo's
 * `validate_number_ownership`): a number in another account's inventory is a 403; one tel does
 * not hold is let through, as Kazoo lets it.
 */
function checkOwnership(core: Core, actor: Actor, doc: Record<string, unknown>): void {
  if (actor.isSuperduper) return;
  const numbers = numbersOf(doc).map((n) => normalizeSystemNumber(core, n));
  if (numbers.length === 0) return;
  const held = stmt(
    core.db,
    `SELECT n.number, a.id, a.tree FROM phone_numbers n JOIN accounts a ON a.id = n.account_id
      WHERE n.number IN (SELECT value FROM json_each(?)) ORDER BY n.number`,
  ).all(JSON.stringify(numbers)) as { number: string; id: string; tree: string }[];
  const refused = held.filter((r) => r.id !== actor.accountId && !(JSON.parse(r.tree) as string[]).includes(actor.accountId)).map((r) => r.number);
  if (refused.length > 0) throw errors.forbidden(`unauthorized to use ${refused.join(', ')}`);
}

/** Creates a connectivity document whose numbers the caller may route. */
export function createConnectivity(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>): StoredDoc {
  checkOwnership(core, actor, input);
  return connectivity.create(core, accountId, input);
}

/** Changes a connectivity document (`replace`: POST, `merge`: PATCH); its numbers as when created. */
export function updateConnectivity(
  core: Core,
  actor: Actor,
  accountId: string,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
): StoredDoc {
  const current = connectivity.get(core, accountId, id);
  checkOwnership(core, actor, mode === 'merge' ? { ...current.doc, ...input } : input);
  return connectivity.update(core, accountId, id, input, mode, ifMatch);
}

const BASE = 'accounts/:account_id/connectivity';
const ONE = `${BASE}/:doc_id`;
const answer = documentAnswer(connectivitySchema);

/** Kazoo lists connectivity documents by id alone; its writes check the numbers' owners. */
const routes: RouteDef[] = [
  {
    method: 'GET',
    path: BASE,
    query: LISTING_QUERY,
    response: { type: 'array', items: { type: 'string', description: "a connectivity document's id" } },
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => connectivity.page(core, ctx.params.account_id, q, desc), (d) => d.id, CREATED_KEY, { whole: filterDoc });
    },
  },
  {
    method: 'PUT',
    path: BASE,
    body: connectivitySchema,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(createConnectivity(core, authOf(ctx), ctx.params.account_id, dataObject(ctx))) }),
  },
  ...writeRoutes(
    ONE,
    (ctx, core, mode) => ({
      data: publicDoc(updateConnectivity(core, authOf(ctx), ctx.params.account_id, ctx.params.doc_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }),
    connectivitySchema,
    answer,
  ),
  // reading and deleting one are those of any document
  ...documentRoutes(connectivity).filter((r) => r.path === ONE && (r.method === 'GET' || r.method === 'DELETE')),
];

/** `/v2/accounts/{id}/connectivity`: Kazoo's `cb_connectivity`. */
export const connectivityModule: TelModule = { name: 'connectivity', endpoints: ['connectivity'], routes };
