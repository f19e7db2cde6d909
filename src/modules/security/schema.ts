import { defineSchema, ref } from '../../schema/registry.js';
import { DEFAULT_AUTH_MODULES } from '../auth/auth-modules.js';

/** One login method's settings (Kazoo's `auth_module_config`). */
export const authModuleConfigSchema = defineSchema('auth_module_config', {
  type: 'object',
  description: 'a login method: whether it may be used, what it logs, its multi-factor settings',
  properties: {
    enabled: { type: 'boolean', description: 'false refuses logins with this method' },
    log_failed_attempts: { type: 'boolean', description: 'log failed logins (security/attempts)' },
    log_successful_attempts: { type: 'boolean', description: 'log logins that made a token' },
    multi_factor: {
      type: 'object',
      additionalProperties: false,
      description: 'multi-factor authentication of this method',
      properties: {
        account_id: { type: 'string', description: 'the account holding the multi-factor configuration' },
        configuration_id: { type: 'string', description: 'the multi-factor configuration (a multi_factor document)' },
        enabled: { type: 'boolean', description: 'ask a second factor' },
        include_subaccounts: { type: 'boolean', description: 'sub-accounts may use this configuration too' },
      },
    },
    token_auth_expiry_s: { type: 'integer', description: "seconds a token made by this method lasts (kept: tel's tokens live by crossbar.auth token_expiry_s)" },
  },
});

/** An account's login settings (Kazoo's `account_config.crossbar.auth`): `/v2/accounts/{id}/security`. */
export const accountAuthConfigSchema = defineSchema('account_config.crossbar.auth', {
  type: 'object',
  required: ['auth_modules'],
  properties: {
    auth_modules: {
      type: 'object',
      additionalProperties: false,
      default: DEFAULT_AUTH_MODULES,
      description: 'the login methods, each with its settings',
      properties: {
        cb_api_auth: ref(authModuleConfigSchema),
        cb_auth: ref(authModuleConfigSchema),
        cb_ip_auth: ref(authModuleConfigSchema),
        cb_user_auth: ref(authModuleConfigSchema),
      },
    },
  },
});
