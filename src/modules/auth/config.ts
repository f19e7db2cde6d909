import type { ConfigCategory } from '../config/categories.js';
import { DEFAULT_AUTH_METHODS, DEFAULT_AUTH_MODULES } from './auth-modules.js';
import { DEFAULT_TOKEN_EXPIRY_SECONDS, DEFAULT_TOKEN_MAX_LIFETIME_SECONDS } from './service.js';
import { DEFAULT_LOGIN_FAILURE_WINDOW_S, DEFAULT_LOGIN_MAX_FAILURES } from './throttle.js';

/** `crossbar.auth`: how long tokens live, how failed logins are slowed down, which login methods accounts may use. */
export const AUTH_CONFIG: ConfigCategory = {
  name: 'crossbar.auth',
  description: 'Logins and tokens: how long a token lives, how failed logins are slowed down, which login methods accounts may use and what they log.',
  keys: {
    token_expiry_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_TOKEN_EXPIRY_SECONDS,
      description: 'Seconds a token stays valid without being used; every use starts the count again.',
    },
    token_max_lifetime_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_TOKEN_MAX_LIFETIME_SECONDS,
      description: 'Seconds after its login at which a token ends, however often it is used.',
    },
    login_max_failures: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_LOGIN_MAX_FAILURES,
      description:
        'Failed logins allowed for one key (a source address, an account name) within `login_failure_window_s`; beyond them logins answer 429 with `Retry-After`.',
    },
    auth_modules: {
      type: 'object',
      default: DEFAULT_AUTH_MODULES,
      description:
        'Each login method (`cb_user_auth`, `cb_api_auth`, `cb_ip_auth`, `cb_auth`): `enabled` (false refuses its logins), `log_failed_attempts`, `log_successful_attempts` (what `security/attempts` lists), `token_auth_expiry_s` (kept; tokens live by `token_expiry_s`), `multi_factor`; resellers and accounts override it in `/v2/accounts/{id}/security`.',
    },
    available_auth_methods: {
      type: 'array',
      default: DEFAULT_AUTH_METHODS,
      description: 'The login methods `GET /v2/security` lists, that accounts may configure.',
    },
    login_failure_window_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_LOGIN_FAILURE_WINDOW_S,
      description: 'Seconds over which failed logins are counted.',
    },
  },
};
