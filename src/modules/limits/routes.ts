import type { RouteDef } from '../../http/router.js';
import { authOf, dataObject, flagOf } from '../../http/request.js';
import { checkLimitsWriter, getLimits, setLimits } from './service.js';
import { limitsSchema } from './schema.js';
import { documentAnswer } from '../../http/answers.js';

const answer = documentAnswer(limitsSchema);

/** A stored record's answer carries Kazoo's postpay fields too. */
const stored = documentAnswer(limitsSchema, {
  allow_postpay: { type: 'boolean', description: 'calls may go on credit (never here: tel bills nothing)' },
  max_postpay_amount: { type: 'number', minimum: 0 },
});

/** `/v2/accounts/{id}/limits` (and `/v1`, which applies without the charge handshake). */
export const limitsRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/limits',
    response: stored,
    handler: (ctx, core) => {
      const r = getLimits(core, ctx.params.account_id);
      // a stored record is answered with the postpay fields cb_limits copies from its private ones
      // (leak_pvt_fields/1): tel bills nothing, so no postpay is allowed, up to 0
      const data = r.rev ? { ...r.data, allow_postpay: false, max_postpay_amount: 0 } : r.data;
      return { data, extras: r.rev ? { revision: r.rev } : {} };
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
      // Stryker disable next-line StringLiteral: every mode but 'merge' replaces
      const r = setLimits(core, ctx.params.account_id, dataObject(ctx), { acceptCharges, mode: 'replace' });
      return { data: r.data, extras: { revision: r.rev } };
    },
  },
];
