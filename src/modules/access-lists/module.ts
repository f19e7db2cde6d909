import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { authOf, dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { ref } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { isObject } from '../../util/json.js';
import { getAccount, setAccountField } from '../accounts/service.js';
import { devices } from '../documents/kinds.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { accessListsSchema } from './schema.js';

const validate = compileValidator(accessListsSchema);

/** Access lists decide who reaches the platform: set by an admin of the account. */
function checkWriter(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden("changing access lists needs an admin of the account");
}

/** The access lists of an account (`device` undefined) or of one of its devices: `{}` when it has none. */
export function getAccessLists(core: Core, accountId: string, deviceId?: string): Record<string, unknown> {
  const doc = deviceId ? devices.get(core, accountId, deviceId).doc : getAccount(core, accountId).doc;
  return isObject(doc.access_lists) ? doc.access_lists : {};
}

/** Sets (or, `undefined`, removes) the access lists of an account or device; answers them (`{}` once removed). */
export function setAccessLists(core: Core, actor: Actor, accountId: string, deviceId: string | undefined, input: Record<string, unknown> | undefined): Record<string, unknown> {
  checkWriter(core, actor);
  let lists: Record<string, unknown> | undefined;
  if (input !== undefined) {
    lists = { ...input };
    throwIfErrors(validate.check(lists));
  }
  if (deviceId) {
    const device = devices.get(core, accountId, deviceId);
    const { access_lists: _old, ...rest } = device.doc;
    devices.update(core, accountId, deviceId, lists === undefined ? rest : { ...rest, access_lists: lists }, 'replace');
  } else {
    setAccountField(core, accountId, 'access_lists', lists);
  }
  return lists ?? {};
}

const answer = { anyOf: [ref(accessListsSchema), { type: 'object', maxProperties: 0 }] };

/** The three routes of one owner's access lists. */
function ownerRoutes(path: string): RouteDef[] {
  const device = (params: Record<string, string>) => params.device_id;
  return [
    { method: 'GET', path, response: answer, handler: (ctx, core) => ({ data: getAccessLists(core, ctx.params.account_id, device(ctx.params)) }) },
    {
      method: 'POST',
      path,
      body: accessListsSchema,
      response: ref(accessListsSchema),
      handler: (ctx, core) => ({ data: setAccessLists(core, authOf(ctx), ctx.params.account_id, device(ctx.params), dataObject(ctx)) }),
    },
    {
      method: 'DELETE',
      path,
      response: { type: 'object', maxProperties: 0 },
      handler: (ctx, core) => ({ data: setAccessLists(core, authOf(ctx), ctx.params.account_id, device(ctx.params), undefined) }),
    },
  ];
}

/** `/v2/accounts/{id}/access_lists` and `…/devices/{id}/access_lists`: Kazoo's `cb_access_lists` (frontier). */
export const accessListsModule: TelModule = {
  name: 'access_lists',
  endpoints: ['access_lists'],
  routes: [...ownerRoutes('accounts/:account_id/access_lists'), ...ownerRoutes('accounts/:account_id/devices/:device_id/access_lists')],
};
