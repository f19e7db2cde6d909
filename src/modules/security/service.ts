import type { Core } from '../../core-type.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { compileValidator, mergeErrors, throwIfErrors } from '../../schema/validate.js';
import { isObject, mergePatch } from '../../util/json.js';
import { findAccount, getAccount } from '../accounts/service.js';
import { AUTH_CATEGORY, DEFAULT_AUTH_METHODS, inheritedAuthModules } from '../auth/auth-modules.js';
import { accountConfigId } from '../config/account-config.js';
import { providerMetadata } from '../multi-factor/service.js';
import { accountAuthConfigSchema } from './schema.js';

/**
 * An account's login settings as Kazoo's `cb_security` serves them (`/v2/accounts/{id}/security`):
 * its own `crossbar.auth` settings document, shown with what it inherits, each method's
 * multi-factor configuration named.
 */

const validateAuthConfig = compileValidator(accountAuthConfigSchema);

/** The login methods accounts may configure (`GET /v2/security`). */
export function availableAuthMethods(core: Core): Record<string, unknown> {
  return { available_auth_methods: core.config.value<unknown>(AUTH_CATEGORY, 'available_auth_methods', DEFAULT_AUTH_METHODS) };
}

/** Settings with each method's `multi_factor` object passed through `change` (the others as they are). */
function eachMultiFactor(config: Record<string, unknown>, change: (mfa: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  if (!isObject(config.auth_modules)) return config;
  const modules: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(config.auth_modules)) modules[name] = isObject(m) && isObject(m.multi_factor) ? { ...m, multi_factor: change(m.multi_factor) } : m;
  return { ...config, auth_modules: modules };
}

/** Settings with each method's multi-factor configuration named under `multi_factor._read_only` (Kazoo's metadata). */
function withMultiFactorNames(core: Core, config: Record<string, unknown>): Record<string, unknown> {
  return eachMultiFactor(config, (mfa) => ({ ...mfa, _read_only: providerMetadata(core, mfa.account_id, mfa.configuration_id) }));
}

/** Settings sent back as they were answered: the names under `multi_factor._read_only` are the server's. */
function withoutMultiFactorNames(config: Record<string, unknown>): Record<string, unknown> {
  return eachMultiFactor(config, ({ _read_only: _names, ...mfa }) => mfa);
}

/** The account's own settings (`{}` when it has none). */
function ownConfig(core: Core, accountId: string): Record<string, unknown> {
  return core.config.forAccount(accountId, AUTH_CATEGORY) ?? {};
}

/** `GET …/security`: `account` (its own settings) and `inherited_config` (what applies above it). */
export function securityOf(core: Core, accountId: string): Record<string, unknown> {
  const account = getAccount(core, accountId);
  return {
    account: withMultiFactorNames(core, ownConfig(core, accountId)),
    inherited_config: withMultiFactorNames(core, { auth_modules: inheritedAuthModules(core, account) }),
  };
}

/**
 * Kazoo's checks of a method's multi-factor settings: a `configuration_id` needs the `account_id`
 * holding it, an account of the caller's tree (or above it, when shared with `include_subaccounts`).
 */
function multiFactorErrors(core: Core, authAccountId: string, isSuperduper: boolean, config: Record<string, unknown>): ValidationErrors | undefined {
  const errs: ValidationErrors = {};
  for (const [name, m] of Object.entries(isObject(config.auth_modules) ? config.auth_modules : {})) {
    const mfa = isObject(m) && isObject(m.multi_factor) ? m.multi_factor : undefined;
    if (typeof mfa?.configuration_id !== 'string' || mfa.configuration_id === '') continue;
    const key = `auth_modules.${name}.account_id`;
    const holder = mfa.account_id;
    if (typeof holder !== 'string' || holder === '') {
      errs[key] = { required: { message: 'setting multi-factor configuration_id needs setting account_id' } };
      continue;
    }
    const below = (id: string, ancestor: string) => id === ancestor || (findAccount(core, id)?.tree.includes(ancestor) ?? false);
    const allowed = isSuperduper || below(holder, authAccountId) || mfa.include_subaccounts === false || below(authAccountId, holder);
    if (!allowed) errs[key] = { required: { message: `multi-factor account_id ${holder} is not in your account tree` } };
  }
  return Object.keys(errs).length > 0 ? errs : undefined;
}

/**
 * `POST` (`replace`) or `PATCH` (`merge`) of an account's login settings: checked by Kazoo's
 * `account_config.crossbar.auth` schema and its multi-factor rules, then stored whole (a login's
 * method is then enabled or not, and logged, by them). Answers the settings with the
 * document's id, as Kazoo does (its `GET` leaves the id out: cb_security read/1).
 */
export function changeSecurity(
  core: Core,
  caller: { accountId: string; isSuperduper: boolean },
  accountId: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
): Record<string, unknown> {
  getAccount(core, accountId);
  const { id: _id, _read_only: _ro, ...sent } = input;
  const doc = withoutMultiFactorNames(mode === 'merge' ? mergePatch(ownConfig(core, accountId), sent) : sent);
  throwIfErrors(mergeErrors(validateAuthConfig.check(doc), multiFactorErrors(core, caller.accountId, caller.isSuperduper, doc)));
  core.config.setForAccount(accountId, AUTH_CATEGORY, doc);
  // the saved document, its id among its public fields (cb_security post/1, patch/1 after crossbar_doc:save/1)
  return { ...withMultiFactorNames(core, doc), id: accountConfigId(AUTH_CATEGORY) };
}

/** `DELETE …/security`: the account's own settings go (it then inherits); none is Kazoo's 404. */
export function deleteSecurity(core: Core, accountId: string): Record<string, unknown> {
  getAccount(core, accountId);
  const own = core.config.forAccount(accountId, AUTH_CATEGORY);
  if (!own) throw errors.badIdentifier('account does not have customize auth configuration');
  core.config.setForAccount(accountId, AUTH_CATEGORY, {});
  return { ...own, id: accountConfigId(AUTH_CATEGORY) };
}
