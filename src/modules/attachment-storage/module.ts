import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { deletedAnswer, documentAnswer } from '../../http/answers.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import type { RequestContext } from '../../http/context.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { getAccount } from '../accounts/service.js';
import { documentService } from '../documents/crud.js';
import { filterDoc, insertChosenId, publicDoc, type StoredDoc } from '../documents/store.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { storageSchema } from './schema.js';

/** An account's storage settings: one document, whose id is the account's (as Kazoo keeps it). */
export const storage = documentService({ kind: 'storage', endpoint: 'storage', summary: [], schema: storageSchema });

/** The storage plans a reseller offers its accounts. */
export const storagePlans = documentService({ kind: 'storage_plan', endpoint: 'plans', summary: [], schema: storageSchema });

/**
 * Storage settings hold the credentials of where files go (an S3 secret, an OAuth document):
 * read and changed by an admin of the account (or of an account above it).
 */
function checkAdmin(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden('storage settings are read and changed by an admin of the account');
}

/** Plans belong to resellers, which offer them to their accounts. */
function checkReseller(core: Core, actor: Actor, accountId: string): void {
  checkAdmin(core, actor);
  if (!getAccount(core, accountId).reseller) throw errors.forbidden('storage plans belong to resellers');
}

/** An account's storage settings (a 404 when it has none). */
export function getStorage(core: Core, actor: Actor, accountId: string): StoredDoc {
  checkAdmin(core, actor);
  getAccount(core, accountId);
  return storage.get(core, accountId, accountId);
}

/** Creates an account's storage settings: a 409 when it has them already. */
export function createStorage(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>): StoredDoc {
  checkAdmin(core, actor);
  getAccount(core, accountId);
  return insertChosenId(() => storage.create(core, accountId, input, accountId));
}

/** Changes an account's storage settings (`replace`: POST, `merge`: PATCH). */
export function updateStorage(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>, mode: 'replace' | 'merge', ifMatch?: string): StoredDoc {
  checkAdmin(core, actor);
  return storage.update(core, accountId, accountId, input, mode, ifMatch);
}

/** Removes an account's storage settings. */
export function deleteStorage(core: Core, actor: Actor, accountId: string, ifMatch?: string): StoredDoc {
  checkAdmin(core, actor);
  return storage.remove(core, accountId, accountId, ifMatch);
}

/** A page of a reseller's storage plans, oldest first (newest first when `descending`). */
export function plansPage(core: Core, actor: Actor, accountId: string, q: PageQuery<CompoundKey>, descending: boolean): Page<StoredDoc, CompoundKey> {
  checkReseller(core, actor, accountId);
  return storagePlans.page(core, accountId, q, descending);
}

/** The operations on one reseller's plans, each once the caller may (an admin, of a reseller). */
export const plans = {
  get(core: Core, actor: Actor, accountId: string, id: string): StoredDoc {
    checkReseller(core, actor, accountId);
    return storagePlans.get(core, accountId, id);
  },
  create(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>): StoredDoc {
    checkReseller(core, actor, accountId);
    return storagePlans.create(core, accountId, input);
  },
  update(core: Core, actor: Actor, accountId: string, id: string, input: Record<string, unknown>, mode: 'replace' | 'merge', ifMatch?: string): StoredDoc {
    checkReseller(core, actor, accountId);
    return storagePlans.update(core, accountId, id, input, mode, ifMatch);
  },
  remove(core: Core, actor: Actor, accountId: string, id: string, ifMatch?: string): StoredDoc {
    checkReseller(core, actor, accountId);
    return storagePlans.remove(core, accountId, id, ifMatch);
  },
};

const BASE = 'accounts/:account_id/storage';
const PLANS = `${BASE}/plans`;
const PLAN = `${PLANS}/:plan_id`;
const answer = documentAnswer(storageSchema);
const deleted = deletedAnswer(storageSchema);
const account = (ctx: RequestContext) => ctx.params.account_id;

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: BASE,
    response: answer,
    handler: (ctx, core) => {
      const d = getStorage(core, authOf(ctx), account(ctx));
      return { data: publicDoc(d), extras: { revision: d.rev } };
    },
  },
  { method: 'PUT', path: BASE, body: storageSchema, response: answer, errors: [409], handler: (ctx, core) => ({ data: publicDoc(createStorage(core, authOf(ctx), account(ctx), dataObject(ctx))) }) },
  ...writeRoutes(
    BASE,
    (ctx, core, mode) => ({ data: publicDoc(updateStorage(core, authOf(ctx), account(ctx), dataObject(ctx), mode, ifMatchOf(ctx))) }),
    storageSchema,
    answer,
  ),
  {
    method: 'DELETE',
    path: BASE,
    response: deleted,
    handler: (ctx, core) => ({ data: { ...publicDoc(deleteStorage(core, authOf(ctx), account(ctx), ifMatchOf(ctx))), _read_only: { deleted: true } } }),
  },
  {
    method: 'GET',
    path: PLANS,
    query: LISTING_QUERY,
    // Kazoo lists plans whole
    response: { type: 'array', items: answer },
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => plansPage(core, authOf(ctx), account(ctx), q, desc), publicDoc, CREATED_KEY, { whole: filterDoc });
    },
  },
  {
    method: 'PUT',
    path: PLANS,
    body: storageSchema,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(plans.create(core, authOf(ctx), account(ctx), dataObject(ctx))) }),
  },
  {
    method: 'GET',
    path: PLAN,
    response: answer,
    handler: (ctx, core) => {
      const d = plans.get(core, authOf(ctx), account(ctx), ctx.params.plan_id);
      return { data: publicDoc(d), extras: { revision: d.rev } };
    },
  },
  ...writeRoutes(
    PLAN,
    (ctx, core, mode) => ({ data: publicDoc(plans.update(core, authOf(ctx), account(ctx), ctx.params.plan_id, dataObject(ctx), mode, ifMatchOf(ctx))) }),
    storageSchema,
    answer,
  ),
  {
    method: 'DELETE',
    path: PLAN,
    response: deleted,
    handler: (ctx, core) => ({ data: { ...publicDoc(plans.remove(core, authOf(ctx), account(ctx), ctx.params.plan_id, ifMatchOf(ctx))), _read_only: { deleted: true } } }),
  },
];

/**
 * `/v2/accounts/{id}/storage` and `…/storage/plans`: Kazoo's `cb_storage`, the documents only (tel
 * keeps every attachment in its own database file, and does not try the settings' credentials).
 */
export const attachmentStorageModule: TelModule = { name: 'attachment_storage', endpoints: ['storage'], routes };
