import type { RouteDef } from '../../http/router.js';
import { authOf } from '../../http/request.js';
import { apiAuth, revokeToken, tokenRecord, userAuth } from './service.js';

/** Logins and the token endpoint. */
export const authRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: 'user_auth',
    auth: 'none',
    handler: async (ctx, core) => {
      const { token, data } = await userAuth(core, ctx.data, { address: ctx.remoteAddress ?? '' });
      ctx.authToken = token;
      return { status: 201, data };
    },
  },
  {
    method: 'PUT',
    path: 'api_auth',
    auth: 'none',
    handler: (ctx, core) => {
      const { token, data } = apiAuth(core, ctx.data, { address: ctx.remoteAddress ?? '' });
      ctx.authToken = token;
      return { status: 201, data };
    },
  },
  {
    method: 'GET',
    path: 'token_auth',
    handler: (ctx, core) => ({ data: tokenRecord(core, authOf(ctx)) }),
  },
  {
    method: 'DELETE',
    path: 'token_auth',
    handler: (ctx, core) => {
      revokeToken(core, authOf(ctx).token);
      ctx.authToken = undefined;
      return { data: undefined };
    },
  },
];
