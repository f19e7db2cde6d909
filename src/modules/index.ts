import type { TelModule } from './types.js';
import { reportDbError } from '../store/health.js';
import { withoutWaiting } from '../store/db.js';
import { accountRoutes } from './accounts/routes.js';
import { ACCOUNTS_CONFIG_CATEGORY } from './accounts/tree.js';
import { userRoutes } from './users/routes.js';
import { authRoutes } from './auth/routes.js';
import { configRoutes, requireAdminForAccountConfig } from './config/routes.js';
import { sweepExpiredTokens } from './auth/service.js';
import { AUTH_CONFIG } from './auth/config.js';
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
import { storageModule } from './storage/module.js';
import { cdrsModule } from './cdrs/module.js';
import { channelsModule } from './channels/module.js';
import { recordingsModule } from './recordings/module.js';
import { messagesModule } from './messages/module.js';
import { parkedCallsModule } from './parked-calls/module.js';
import { acdcCallStatsModule } from './acdc-call-stats/module.js';
import { quickcallModule } from './quickcall/module.js';
import { presenceModule } from './presence/module.js';
import { faxesModule } from './faxes/module.js';

/**
 * Every module of tel, in one explicit list (a bundled binary cannot discover files).
 * Add a module here to give it routes, bus subscriptions or background workers.
 */
export const MODULES: TelModule[] = [
  storageModule,
  { name: 'accounts', endpoints: ['accounts'], routes: accountRoutes, configs: [ACCOUNTS_CONFIG_CATEGORY] },
  { name: 'users', endpoints: ['users'], routes: userRoutes },
  {
    name: 'auth',
    endpoints: ['user_auth', 'api_auth', 'token_auth', 'auth'],
    routes: authRoutes,
    configs: [AUTH_CONFIG],
    start(core) {
      const timer = setInterval(() => {
        try {
          withoutWaiting(core.db, () => sweepExpiredTokens(core));
        } catch (err) {
          // a file another process holds, or a full disk: the next sweep takes them
          reportDbError(core.db, 'sweeping expired tokens failed', err);
        }
      }, 60_000);
      timer.unref();
      return { stop: async () => clearInterval(timer) };
    },
  },
  {
    name: 'config',
    endpoints: ['system_configs', 'configs'],
    routes: configRoutes,
    accountTables: ['account_configs'],
    authorizers: [requireAdminForAccountConfig],
  },
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
  cdrsModule,
  channelsModule,
  recordingsModule,
  messagesModule,
  parkedCallsModule,
  acdcCallStatsModule,
  quickcallModule,
  presenceModule,
  faxesModule,
];
