import { authorizers } from '../../http/authorize.js';
import { errors } from '../../errors.js';
import { validateLoginRestrictions, validateTemplate, type LoginRestrictions } from '../../restrictions/index.js';
import { accountDocChecks } from '../accounts/service.js';
import { configChecks } from '../config/service.js';
import { loginRestrictionChecks, tokenRestrictionHooks } from '../auth/service.js';
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

let installed = false;

/** Hooks the restrictions into login, the request pipeline and account validation (once per process). */
export function installTokenRestrictions(): void {
  if (installed) return;
  installed = true;
  authorizers.push(enforceTokenRestrictions, requireAdminForTemplateChanges);
  tokenRestrictionHooks.select = (core, who) => chooseTokenRules(core, who).rules;
  tokenRestrictionHooks.parse = parseTokenRules;
  loginRestrictionChecks.validate = (value: unknown): LoginRestrictions => {
    const errs = validateLoginRestrictions(value);
    if (errs) throw errors.validation(errs);
    return value as LoginRestrictions;
  };
  accountDocChecks.push((doc) => (doc.restrictions === undefined ? undefined : validateTemplate(doc.restrictions)));
  configChecks.set(SYSTEM_TEMPLATE_CATEGORY, validateSystemTemplate);
}

/** Token restrictions: templates, their endpoints, and enforcement on every request. */
export const tokenRestrictionsModule: TelModule = {
  name: 'token_restrictions',
  endpoints: ['token_restrictions'],
  routes: tokenRestrictionRoutes,
  configDefaults: { [SYSTEM_TEMPLATE_CATEGORY]: { default_priv_level: DEFAULT_PRIV_LEVEL } },
  init: installTokenRestrictions,
};
