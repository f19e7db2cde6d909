import type { TelModule } from '../types.js';
import { reportDbError } from '../../store/health.js';
import { withoutWaiting } from '../../store/db.js';
import { authRoutes } from './routes.js';
import { AUTH_CONFIG } from './config.js';
import { sweepExpiredTokens } from './service.js';

/** How often a server removes the tokens whose sliding expiry has passed. */
const TOKEN_SWEEP_INTERVAL_MS = 60_000;

/** Logins (user, API key), tokens and what they say of themselves; a server sweeps expired tokens. */
export const authModule: TelModule = {
  name: 'auth',
  endpoints: ['user_auth', 'api_auth', 'token_auth', 'auth'],
  routes: authRoutes,
  configs: [AUTH_CONFIG],
  accountTables: ['login_attempts'],
  start(core) {
    const timer = setInterval(() => {
      try {
        withoutWaiting(core.db, () => sweepExpiredTokens(core));
      } catch (err) {
        // a file another process holds, or a full disk: the next sweep takes them
        reportDbError(core.db, 'sweeping expired tokens failed', err);
      }
    }, TOKEN_SWEEP_INTERVAL_MS);
    timer.unref();
    return { stop: async () => clearInterval(timer) };
  },
};
