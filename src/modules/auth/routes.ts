import type { RouteDef } from '../../http/router.js';
import { errors } from '../../errors.js';
import { CREATED_KEY, listingReply, pagingQuery, TIME_WINDOW_QUERY, timeWindowOf } from '../../http/paging.js';
import { findLoginAttempt, listLoginAttempts, loginAttemptRow } from './auth-modules.js';
import { authOf, dataObject, ownApiUrl } from '../../http/request.js';
import { recoveryValidator, requestRecovery, resetPassword, resetValidator } from './recovery.js';
import type { RequestContext } from '../../http/context.js';
import { apiAuth, apiAuthValidator, revokeToken, tokenInfo, tokenRecord, userAuth, userAuthValidator, type LoginSource } from './service.js';

/** Where a login comes from: the throttle's key, the API URL the apps are listed with, what its attempt logs. */
function loginSourceOf(ctx: RequestContext): LoginSource {
  const agent = ctx.headers['user-agent'];
  return { address: ctx.remoteAddress ?? '', apiUrl: ownApiUrl(ctx), requestId: ctx.requestId, userAgent: typeof agent === 'string' ? agent.slice(0, 256) : undefined };
}

/** Logins, the token endpoint and `auth/tokeninfo` (a token looked at without sending it as one). */
export const authRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: 'user_auth',
    auth: 'none',
    cors: 'allowed-origins',
    body: userAuthValidator.schema,
    errors: [401, 429],
    handler: async (ctx, core) => {
      const { token, data } = await userAuth(core, ctx.data, loginSourceOf(ctx));
      ctx.authToken = token;
      return { status: 201, data };
    },
  },
  {
    method: 'PUT',
    path: 'api_auth',
    auth: 'none',
    cors: 'allowed-origins',
    body: apiAuthValidator.schema,
    errors: [401, 429],
    handler: async (ctx, core) => {
      const { token, data } = await apiAuth(core, ctx.data, loginSourceOf(ctx));
      ctx.authToken = token;
      return { status: 201, data };
    },
  },
  {
    // a reset link, sent to the account's notifications hooks (tel sends no e-mail)
    method: 'PUT',
    path: 'user_auth/recovery',
    auth: 'none',
    cors: 'allowed-origins',
    body: recoveryValidator.schema,
    response: { type: 'string', description: 'what was done' },
    errors: [429],
    handler: async (ctx, core) => ({ status: 201, data: await requestRecovery(core, ctx.data, loginSourceOf(ctx)) }),
  },
  {
    // following a reset link: a login that must set a new password
    method: 'POST',
    path: 'user_auth/recovery',
    auth: 'none',
    cors: 'allowed-origins',
    body: resetValidator.schema,
    errors: [429],
    handler: async (ctx, core) => {
      const { token, data } = await resetPassword(core, ctx.data, loginSourceOf(ctx));
      ctx.authToken = token;
      return { data };
    },
  },
  {
    // Kazoo's: what the token sent stands for, when the path names that same token
    method: 'GET',
    path: 'user_auth/:auth_token',
    handler: (ctx, core) => {
      const auth = authOf(ctx);
      if (ctx.params.auth_token !== auth.token) throw errors.invalidCredentials();
      return { data: tokenRecord(core, auth, ownApiUrl(ctx)) };
    },
  },
  {
    method: 'GET',
    path: 'token_auth',
    handler: (ctx, core) => ({ data: tokenRecord(core, authOf(ctx), ownApiUrl(ctx)) }),
  },
  {
    method: 'POST',
    path: 'auth/tokeninfo',
    auth: 'none',
    body: { type: 'object', properties: { token: { type: 'string', description: 'the token to describe' } } },
    errors: [401],
    handler: (ctx, core) => {
      const token = dataObject(ctx).token;
      const data = tokenInfo(core, token, 'request', ownApiUrl(ctx));
      ctx.authToken = token as string;
      return { data };
    },
  },
  {
    method: 'GET',
    path: 'auth/tokeninfo',
    auth: 'none',
    query: [{ name: 'token', description: 'the token to describe', schema: { type: 'string' } }],
    errors: [401],
    handler: (ctx, core) => {
      const token = ctx.query.get('token');
      const data = tokenInfo(core, token, 'params', ownApiUrl(ctx));
      ctx.authToken = token as string;
      return { data };
    },
  },
  {
    method: 'DELETE',
    path: 'token_auth',
    handler: (ctx, core) => {
      revokeToken(core, authOf(ctx).token);
      ctx.authToken = undefined;
      return {};
    },
  },
];

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
        return listingReply(ctx.query, (q) => listLoginAttempts(core, ctx.params.account_id, { ...window, ...q, authType }), loginAttemptRow, CREATED_KEY, { timeRange: true });
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
