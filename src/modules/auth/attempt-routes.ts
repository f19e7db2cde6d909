import type { RouteDef } from '../../http/router.js';
import { CREATED_KEY, listingReply, pagingQuery, TIME_WINDOW_QUERY, timeWindowOf } from '../../http/paging.js';
import { errors } from '../../errors.js';
import { findLoginAttempt, listLoginAttempts, loginAttemptRow } from './auth-modules.js';

/** A login attempt as its listing row answers it (Kazoo's `auth/login_attempt_by_time` view). */
const attemptRow = {
  type: 'object',
  required: ['id', 'auth_type', 'status'],
  properties: { id: { type: 'string' }, auth_type: { type: 'string' }, auth_module: { type: 'string' }, status: { enum: ['success', 'failed'] }, message: { type: 'string' }, timestamp: { type: 'integer' }, client_ip: { type: 'string' } },
};

/**
 * `GET {base}/attempts` (a page, newest first, in a time window) and `GET {base}/attempts/{id}`:
 * an account's login attempts, of one `auth_type` when given (`multi_factor` lists only its own).
 */
export function loginAttemptRoutes(base: string, authType?: string): RouteDef[] {
  return [
    {
      method: 'GET',
      path: `${base}/attempts`,
      query: [...TIME_WINDOW_QUERY, ...pagingQuery()],
      response: { type: 'array', items: attemptRow },
      handler: (ctx, core) => {
        const window = timeWindowOf(ctx.query);
        return listingReply(ctx.query, (q) => listLoginAttempts(core, ctx.params.account_id, { ...window, ...q, authType }), loginAttemptRow, CREATED_KEY);
      },
    },
    {
      method: 'GET',
      path: `${base}/attempts/:attempt_id`,
      response: { type: 'object', required: ['id'], properties: attemptRow.properties },
      handler: (ctx, core) => {
        const found = findLoginAttempt(core, ctx.params.account_id, ctx.params.attempt_id, authType);
        if (!found) throw errors.badIdentifier(ctx.params.attempt_id);
        return { data: found };
      },
    },
  ];
}
