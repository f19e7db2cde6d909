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
  configDefaults: { [SYSTEM_TEMPLATE_CATEGORY]: { default_priv_level: DEFAULT_PRIV_LEVEL } },
  configChecks: { [SYSTEM_TEMPLATE_CATEGORY]: validateSystemTemplate },
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
