import { errors } from '../../errors.js';
import { validateLoginRestrictions, validateTemplate, type LoginRestrictions } from '../../restrictions/index.js';
import type { TelModule } from '../types.js';
import { enforceTokenRestrictions, requireAdminForTemplateChanges } from './authorize.js';
import { tokenRestrictionRoutes } from './routes.js';
import {
  chooseTokenRules,
  DEFAULT_PRIV_LEVEL,
  parseTokenRules,
  SYSTEM_TEMPLATE_CATEGORY,
  validateSystemTemplate,
} from './service.js';

/** Token restrictions: templates, their endpoints, and enforcement on every request. */
export const tokenRestrictionsModule: TelModule = {
  name: 'token_restrictions',
  endpoints: ['token_restrictions'],
  routes: tokenRestrictionRoutes,
  configs: [
    {
      name: SYSTEM_TEMPLATE_CATEGORY,
      description:
        "The system token restriction template: its `default` node holds endpoint rules by auth method and privilege level, as an account template does, for logins whose account has none. Kazoo's name for the category, `crossbar.token_restrictions`, works too.",
      keys: {
        default_priv_level: {
          type: 'string',
          pattern: '^\\w+$',
          default: DEFAULT_PRIV_LEVEL,
          description: 'The privilege level whose rules a token without a user (an API-key login) gets.',
        },
      },
      check: validateSystemTemplate,
    },
  ],
  authorizers: [enforceTokenRestrictions, requireAdminForTemplateChanges],
  tokenRules: {
    select: (core, who) => chooseTokenRules(core, who).rules,
    parse: parseTokenRules,
    validateLogin: (value: unknown): LoginRestrictions => {
      const errs = validateLoginRestrictions(value);
      if (errs) throw errors.validation(errs);
      return value as LoginRestrictions;
    },
  },
  accountDocChecks: [(doc) => (doc.restrictions === undefined ? undefined : validateTemplate(doc.restrictions))],
};
