import type { TelModule } from './types.js';
import { accountsModule } from './accounts/module.js';
import { usersModule } from './users/module.js';
import { authModule } from './auth/module.js';
import { configModule } from './config/module.js';
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
import { multiFactorModule } from './multi-factor/module.js';
import { securityModule } from './security/module.js';

/**
 * Every module of tel, in one explicit list (a bundled binary cannot discover files).
 * Add a module here to give it routes, bus subscriptions or background workers.
 */
export const MODULES: TelModule[] = [
  storageModule,
  accountsModule,
  usersModule,
  authModule,
  configModule,
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
  multiFactorModule,
  securityModule,
];
