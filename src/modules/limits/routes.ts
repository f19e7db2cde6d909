import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject, flagOf } from '../../http/request.js';
import { checkLimitsWriter, getLimits, setLimits } from './service.js';
import { limitsSchema } from './schema.js';
import { documentAnswer } from '../../http/answers.js';

const answer = documentAnswer(limitsSchema);

/** `/v2/accounts/{id}/limits` (and `/v1`, which applies without the charge handshake). */
export const limitsRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/limits',
    response: answer,
    handler: (ctx, core) => {
      const r = getLimits(core, ctx.params.account_id);
      return { data: r.data, extras: r.rev ? { revision: r.rev } : {} };
    },
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/limits',
    body: limitsSchema,
    response: answer,
    errors: [402],
    handler: (ctx, core) => {
      checkLimitsWriter(core, authOf(ctx), ctx.params.account_id);
      // v1 clients predate the handshake: Kazoo 4.x marks them as accepting charges.
      const acceptCharges = ctx.path.version === 'v1' || flagOf(ctx, 'accept_charges');
      // a POST sends the whole record, as Kazoo's
      const r = setLimits(core, ctx.params.account_id, dataObject(ctx), { acceptCharges, mode: 'replace' });
      return { data: r.data, extras: { revision: r.rev } };
    },
  },
];
