import type { Core } from '../../core-type.js';
import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { metaflows as metaflowsSchema } from '../../schema/metaflows.js';
import { ref } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { isObject } from '../../util/json.js';
import { getAccount, setAccountField } from '../accounts/service.js';
import type { TelModule } from '../types.js';

const validate = compileValidator(metaflowsSchema);

/** An account's metaflows (what callers' DTMF does during its calls): `{}` when it has none. */
export function getMetaflows(core: Core, accountId: string): Record<string, unknown> {
  const m = getAccount(core, accountId).doc.metaflows;
  return isObject(m) ? m : {};
}

/** Sets an account's metaflows, checked by Kazoo's `metaflows` schema (defaults filled); answers them. */
export function setMetaflows(core: Core, accountId: string, input: Record<string, unknown>): Record<string, unknown> {
  const metaflows = { ...input };
  throwIfErrors(validate.check(metaflows));
  setAccountField(core, accountId, 'metaflows', metaflows);
  return metaflows;
}

/** Removes an account's metaflows; answers `{}`. */
export function deleteMetaflows(core: Core, accountId: string): Record<string, unknown> {
  setAccountField(core, accountId, 'metaflows', undefined);
  return {};
}

const PATH = 'accounts/:account_id/metaflows';

const routes: RouteDef[] = [
  { method: 'GET', path: PATH, response: ref(metaflowsSchema), handler: (ctx, core) => ({ data: getMetaflows(core, ctx.params.account_id) }) },
  {
    method: 'POST',
    path: PATH,
    body: metaflowsSchema,
    response: ref(metaflowsSchema),
    handler: (ctx, core) => ({ data: setMetaflows(core, ctx.params.account_id, dataObject(ctx)) }),
  },
  { method: 'DELETE', path: PATH, response: { type: 'object', maxProperties: 0 }, handler: (ctx, core) => ({ data: deleteMetaflows(core, ctx.params.account_id) }) },
];

/** `/v2/accounts/{id}/metaflows`: Kazoo's `cb_metaflows`, kept on the account's document. */
export const metaflowsModule: TelModule = { name: 'metaflows', endpoints: ['metaflows'], routes };
