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
import { voicemailModule } from './voicemail/module.js';
import { registrationsModule } from './registrations/module.js';
import { accessListsModule } from './access-lists/module.js';
import { agentsModule } from './agents/module.js';
import { allotmentsModule } from './allotments/module.js';
import { attachmentStorageModule } from './attachment-storage/module.js';
import { blacklistsModule } from './blacklists/module.js';
import { clicktocallModule } from './clicktocall/module.js';
import { commentsModule } from './comments/module.js';
import { conferencesModule } from './conferences/module.js';
import { connectivityModule } from './connectivity/module.js';
import { contactListModule } from './contact-list/module.js';
import { dialplansModule } from './dialplans/module.js';
import { directoriesModule } from './directories/module.js';
import { groupsModule } from './groups/module.js';
import { hotdesksModule } from './hotdesks/module.js';
import { ipAuthModule } from './ip-auth/module.js';
import { listsModule } from './lists/module.js';
import { menusModule } from './menus/module.js';
import { metaflowsModule } from './metaflows/module.js';
import { rateLimitsModule } from './rate-limits/module.js';
import { ratesModule } from './rates/module.js';
import { resourceSelectorsModule } from './resource-selectors/module.js';
import { schemasModule } from './schemas/module.js';
import { temporalRulesModule } from './temporal-rules/module.js';
import { cdrsModule } from './cdrs/module.js';
import { channelsModule } from './channels/module.js';
import { recordingsModule } from './recordings/module.js';
import { messagesModule } from './messages/module.js';
import { parkedCallsModule } from './parked-calls/module.js';
import { acdcCallStatsModule } from './acdc-call-stats/module.js';
import { quickcallModule } from './quickcall/module.js';
import { presenceModule } from './presence/module.js';
import { faxesModule } from './faxes/module.js';
import { cccpsModule } from './cccps/module.js';
import { searchModule } from './search/module.js';
import { appsLinkModule } from './apps-link/module.js';
import { systemStatusModule } from './system-status/module.js';
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
  voicemailModule,
  registrationsModule,
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
  accessListsModule,
  agentsModule,
  allotmentsModule,
  attachmentStorageModule,
  blacklistsModule,
  clicktocallModule,
  commentsModule,
  conferencesModule,
  connectivityModule,
  contactListModule,
  dialplansModule,
  directoriesModule,
  groupsModule,
  hotdesksModule,
  ipAuthModule,
  listsModule,
  menusModule,
  metaflowsModule,
  rateLimitsModule,
  ratesModule,
  resourceSelectorsModule,
  schemasModule,
  temporalRulesModule,
  cdrsModule,
  channelsModule,
  recordingsModule,
  messagesModule,
  parkedCallsModule,
  acdcCallStatsModule,
  quickcallModule,
  presenceModule,
  faxesModule,
  cccpsModule,
  searchModule,
  appsLinkModule,
  systemStatusModule,
  multiFactorModule,
  securityModule,
];
