import type { TelModule } from './types.js';
import { accountRoutes } from './accounts/routes.js';
import { ACCOUNTS_CONFIG, ACCOUNTS_CONFIG_DEFAULTS } from './accounts/tree.js';
import { userRoutes } from './users/routes.js';
import { authRoutes } from './auth/routes.js';
import { configRoutes } from './config/routes.js';
import { DEFAULT_TOKEN_EXPIRY_SECONDS, DEFAULT_TOKEN_MAX_LIFETIME_SECONDS, sweepExpiredTokens } from './auth/service.js';
import { DEFAULT_LOGIN_FAILURE_WINDOW_S, DEFAULT_LOGIN_MAX_FAILURES } from './auth/throttle.js';
import { documentsModule } from './documents/module.js';
import { simulationsModule } from './simulations/module.js';
import { tokenRestrictionsModule } from './token-restrictions/module.js';
import { limitsModule } from './limits/module.js';
import { pushModule } from './push/module.js';
import { queuesModule } from './queues/module.js';
import { resourcesModule } from './resources/module.js';
import { numbersModule } from './numbers/module.js';
import { webhooksModule } from './webhooks/module.js';
import { appsStoreModule } from './apps-store/module.js';
import { whitelabelModule } from './whitelabel/module.js';
import { alertsModule } from './alerts/module.js';
import { ledgersModule } from './ledgers/module.js';
import { aboutModule } from './about/module.js';
import { resourceTemplatesModule } from './resource-templates/module.js';
import { deliveryModule } from './delivery/module.js';
import { openApiModule } from './openapi/module.js';

/**
 * Every module of tel, in one explicit list (a bundled binary cannot discover files).
 * Add a module here to give it routes, bus subscriptions or background workers.
 */
export const MODULES: TelModule[] = [
  { name: 'accounts', endpoints: ['accounts'], routes: accountRoutes, configDefaults: { [ACCOUNTS_CONFIG]: ACCOUNTS_CONFIG_DEFAULTS } },
  { name: 'users', endpoints: ['users'], routes: userRoutes },
  {
    name: 'auth',
    endpoints: ['user_auth', 'api_auth', 'token_auth', 'auth'],
    routes: authRoutes,
    configDefaults: {
      'crossbar.auth': {
        token_expiry_s: DEFAULT_TOKEN_EXPIRY_SECONDS,
        token_max_lifetime_s: DEFAULT_TOKEN_MAX_LIFETIME_SECONDS,
        login_max_failures: DEFAULT_LOGIN_MAX_FAILURES,
        login_failure_window_s: DEFAULT_LOGIN_FAILURE_WINDOW_S,
      },
    },
    start(core) {
      const timer = setInterval(() => sweepExpiredTokens(core), 60_000);
      timer.unref();
      return { stop: async () => clearInterval(timer) };
    },
  },
  { name: 'config', endpoints: ['system_configs', 'configs'], routes: configRoutes, accountTables: ['account_configs'] },
  documentsModule,
  simulationsModule,
  tokenRestrictionsModule,
  limitsModule,
  pushModule,
  queuesModule,
  resourcesModule,
  resourceTemplatesModule,
  numbersModule,
  webhooksModule,
  appsStoreModule,
  whitelabelModule,
  alertsModule,
  ledgersModule,
  aboutModule,
  openApiModule,
  deliveryModule,
];
