import type { ConfigCategory } from '../config/categories.js';
import { DEFAULT_TOKEN_EXPIRY_SECONDS, DEFAULT_TOKEN_MAX_LIFETIME_SECONDS } from './service.js';
import { DEFAULT_LOGIN_FAILURE_WINDOW_S, DEFAULT_LOGIN_MAX_FAILURES } from './throttle.js';

/** `crossbar.auth`: how long tokens live and how failed logins are slowed down. */
export const AUTH_CONFIG: ConfigCategory = {
  name: 'crossbar.auth',
  description: 'Logins and tokens: how long a token lives, and how failed logins are slowed down.',
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
    login_failure_window_s: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_LOGIN_FAILURE_WINDOW_S,
      description: 'Seconds over which failed logins are counted.',
    },
  },
};
