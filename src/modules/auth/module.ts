import type { TelModule } from '../types.js';
import { choreEvery } from '../../store/chores.js';
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
  start: (core) => choreEvery(core.db, TOKEN_SWEEP_INTERVAL_MS, 'sweeping expired tokens failed', () => sweepExpiredTokens(core)),
};
