import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { authOf, dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { ref, type JsonSchema } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { transaction } from '../../store/db.js';
import { getAccount } from '../accounts/service.js';
import { devices } from '../documents/kinds.js';
import { deleteDoc, findOnlyDoc, insertDoc, publicDoc, updateDoc } from '../documents/store.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { accountRateLimitsSchema, deviceRateLimitsSchema } from './schema.js';

const KIND = 'rate_limits';
const validators = { account: compileValidator(accountRateLimitsSchema), device: compileValidator(deviceRateLimitsSchema) };

/** Whose rate limits: an account's (its realm's and its devices' by default) or one device's. */
interface Owner {
  type: 'account' | 'device';
  id: string;
  /** what the switch knows the owner by: the account's realm, the device's SIP username */
  queryName?: string;
}

function ownerOf(core: Core, accountId: string, deviceId?: string): Owner {
  if (!deviceId) return { type: 'account', id: accountId, queryName: getAccount(core, accountId).realm };
  const sip = devices.get(core, accountId, deviceId).doc.sip as { username?: unknown } | undefined;
  return { type: 'device', id: deviceId, queryName: typeof sip?.username === 'string' ? sip.username : undefined };
}

/** Rate limits protect the platform from floods: changed by an admin of the account. */
function checkWriter(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden('changing rate limits needs an admin of the account');
}

/** The rate limits of an account or a device: `{}` when none are set. */
export function getRateLimits(core: Core, accountId: string, deviceId?: string): Record<string, unknown> {
  const owner = ownerOf(core, accountId, deviceId);
  const d = findOnlyDoc(core, KIND, accountId, owner.id);
  return d ? publicDoc(d) : {};
}

/** Sets the rate limits of an account or a device (Kazoo's schema for each); answers them. */
export function setRateLimits(core: Core, actor: Actor, accountId: string, deviceId: string | undefined, input: Record<string, unknown>): Record<string, unknown> {
  checkWriter(core, actor);
  return transaction(core.db, () => {
    const owner = ownerOf(core, accountId, deviceId);
    const doc = { ...input };
    delete doc.id;
    throwIfErrors(validators[owner.type].check(doc));
    const pvt = { owner_id: owner.id, owner_type: owner.type, queryname: owner.queryName };
    const current = findOnlyDoc(core, KIND, accountId, owner.id);
    return publicDoc(current ? updateDoc(core, current, doc, pvt) : insertDoc(core, KIND, accountId, doc, pvt));
  });
}

/** Removes the rate limits of an account or a device; answers those removed (`{}` when none were set). */
export function deleteRateLimits(core: Core, actor: Actor, accountId: string, deviceId?: string): Record<string, unknown> {
  checkWriter(core, actor);
  return transaction(core.db, () => {
    const current = findOnlyDoc(core, KIND, accountId, ownerOf(core, accountId, deviceId).id);
    if (!current) return {};
    deleteDoc(core, current);
    return { ...publicDoc(current), _read_only: { deleted: true } };
  });
}

/** The three routes of one owner's rate limits, validated by `schema`. */
function ownerRoutes(path: string, schema: JsonSchema): RouteDef[] {
  const stored = { anyOf: [{ allOf: [ref(schema), { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }] }, { type: 'object', maxProperties: 0 }] };
  return [
    { method: 'GET', path, response: stored, handler: (ctx, core) => ({ data: getRateLimits(core, ctx.params.account_id, ctx.params.device_id) }) },
    {
      method: 'POST',
      path,
      body: schema,
      response: stored,
      handler: (ctx, core) => ({ data: setRateLimits(core, authOf(ctx), ctx.params.account_id, ctx.params.device_id, dataObject(ctx)) }),
    },
    { method: 'DELETE', path, response: { type: 'object' }, handler: (ctx, core) => ({ data: deleteRateLimits(core, authOf(ctx), ctx.params.account_id, ctx.params.device_id) }) },
  ];
}

/** `/v2/accounts/{id}/rate_limits` and `…/devices/{id}/rate_limits`: Kazoo's `cb_rate_limits`. */
export const rateLimitsModule: TelModule = {
  name: 'rate_limits',
  endpoints: ['rate_limits'],
  routes: [...ownerRoutes('accounts/:account_id/rate_limits', accountRateLimitsSchema), ...ownerRoutes('accounts/:account_id/devices/:device_id/rate_limits', deviceRateLimitsSchema)],
};
