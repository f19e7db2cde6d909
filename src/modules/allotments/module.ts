import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { authOf, dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { ref } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { transaction } from '../../store/db.js';
import { getAccount, masterAccount, resellerIdOf } from '../accounts/service.js';
import { findOnlyDoc, insertDoc, updateDoc } from '../documents/store.js';
import type { Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { allotmentsSchema } from './schema.js';

const KIND = 'allotments';
const validate = compileValidator(allotmentsSchema);

/** An account's allotments; a 400 when it has none, as Kazoo answers. */
export function getAllotments(core: Core, accountId: string): Record<string, unknown> {
  getAccount(core, accountId);
  const d = findOnlyDoc(core, KIND, accountId);
  if (!d || Object.keys(d.doc).length === 0) throw errors.refused('allotments are not configured for this account yet');
  return d.doc;
}

/**
 * Sets an account's allotments (replacing them): its reseller's work, or the master account's or a
 * super-duper admin's; anyone else gets Kazoo's 400.
 */
export function setAllotments(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>): Record<string, unknown> {
  const allotments = { ...input };
  throwIfErrors(validate.check(allotments));
  const account = getAccount(core, accountId);
  const reseller = resellerIdOf(core, account);
  if (!actor.isSuperduper && reseller !== actor.accountId && reseller !== masterAccount(core)?.id) {
    throw errors.refused('sub-accounts of non-master resellers must contact the reseller to change their allotments');
  }
  return transaction(core.db, () => {
    const current = findOnlyDoc(core, KIND, accountId);
    return (current ? updateDoc(core, current, allotments) : insertDoc(core, KIND, accountId, allotments)).doc;
  });
}

const PATH = 'accounts/:account_id/allotments';

const routes: RouteDef[] = [
  { method: 'GET', path: PATH, response: ref(allotmentsSchema), handler: (ctx, core) => ({ data: getAllotments(core, ctx.params.account_id) }) },
  {
    method: 'POST',
    path: PATH,
    body: allotmentsSchema,
    response: ref(allotmentsSchema),
    handler: (ctx, core) => ({ data: setAllotments(core, authOf(ctx), ctx.params.account_id, dataObject(ctx)) }),
  },
];

/** `/v2/accounts/{id}/allotments`: Kazoo's `cb_allotments` (what an account was given; what it consumed comes from call records). */
export const allotmentsModule: TelModule = { name: 'allotments', endpoints: ['allotments'], routes };
