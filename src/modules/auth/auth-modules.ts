import type { Core } from '../../core-type.js';
import type { SQLInputValue } from 'node:sqlite';
import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { isObject, mergeLayers } from '../../util/json.js';
import { nowGregorian, type TimeWindow } from '../../util/time.js';
import { findAccount, resellerIdOf, type Account } from '../accounts/service.js';
import { modbId } from '../documents/modb.js';

/**
 * Which login methods an account may use and which of their attempts it logs, as Kazoo's
 * `crossbar_auth` reads the `crossbar.auth` settings (`auth_modules`): the account's own, its
 * ancestors' up to its reseller, the system's; and the log of attempts (`security/attempts`).
 */

/** The category of the login methods' settings. */
export const AUTH_CATEGORY = 'crossbar.auth';

const method = (logSuccess: boolean) => ({ enabled: true, log_failed_attempts: true, log_successful_attempts: logSuccess, token_auth_expiry_s: 3600 });

/** Kazoo's built-in `auth_modules`: every method enabled, failures logged, user logins' successes too. */
export const DEFAULT_AUTH_MODULES: Readonly<Record<string, Record<string, unknown>>> = {
  cb_api_auth: method(false),
  cb_auth: method(false),
  cb_ip_auth: method(false),
  cb_user_auth: method(true),
};

/** The login methods `GET /v2/security` lists (Kazoo's `available_auth_methods`). */
export const DEFAULT_AUTH_METHODS = ['cb_user_auth', 'cb_api_auth', 'cb_auth', 'cb_ip_auth'];

/** The system's `auth_modules` (its `crossbar.auth` settings, else Kazoo's built-in ones). */
export function systemAuthModules(core: Core): Record<string, unknown> {
  const v = core.config.value<unknown>(AUTH_CATEGORY, 'auth_modules', undefined);
  return isObject(v) ? v : structuredClone(DEFAULT_AUTH_MODULES);
}

/** An account's own `auth_modules` (its `crossbar.auth` settings), or undefined. */
function ownAuthModules(core: Core, accountId: string): Record<string, unknown> | undefined {
  const v = core.config.forAccount(accountId, AUTH_CATEGORY)?.auth_modules;
  return isObject(v) ? v : undefined;
}

/**
 * `auth_modules` as Kazoo's `kapps_account_config:get_hierarchy` merges them for an account: the
 * system's, under those of the accounts from its reseller down to it (the nearer one wins).
 */
export function hierarchyAuthModules(core: Core, account: Account): Record<string, unknown> {
  const reseller = resellerIdOf(core, account);
  const chain = [account.id];
  for (let i = account.tree.length - 1; i >= 0 && chain[chain.length - 1] !== reseller; i--) chain.push(account.tree[i]);
  const layers = chain.reverse().map((id) => ownAuthModules(core, id) ?? {});
  return mergeLayers(systemAuthModules(core), ...layers);
}

/**
 * What an account inherits (Kazoo's `crossbar_auth:get_inherited_config`): a reseller the system's
 * settings, another account its parent's as they apply to the parent.
 */
export function inheritedAuthModules(core: Core, account: Account): Record<string, unknown> {
  const parent = account.parentId ? findAccount(core, account.parentId) : undefined;
  return account.reseller || !parent ? systemAuthModules(core) : hierarchyAuthModules(core, parent);
}

/** One method's settings as they apply to an account. */
function methodSettings(core: Core, account: Account, authMethod: string): Record<string, unknown> {
  const v = hierarchyAuthModules(core, account)[authMethod];
  return isObject(v) ? v : {};
}

/** Whether an account may log in with a method (`enabled` is not false for it). */
export function authMethodEnabled(core: Core, account: Account, authMethod: string): boolean {
  return methodSettings(core, account, authMethod).enabled !== false;
}

/** A login attempt as the log keeps it. */
export interface LoginAttempt {
  accountId: string;
  authModule: string;
  status: 'success' | 'failed';
  message: string;
  clientIp?: string;
  requestId?: string;
  userAgent?: string;
}

/** How long attempts are kept (Kazoo keeps them in monthly databases). */
export const LOGIN_ATTEMPTS_RETENTION_MS = 31 * 24 * 3600 * 1000;

/**
 * Logs a login attempt when the account's settings of its method ask for it
 * (`log_failed_attempts`, `log_successful_attempts`), dropping the account's attempts older than
 * a month; answers whether it was logged.
 */
export function logLoginAttempt(core: Core, account: Account, a: LoginAttempt): boolean {
  const settings = methodSettings(core, account, a.authModule);
  if (settings[a.status === 'success' ? 'log_successful_attempts' : 'log_failed_attempts'] !== true) return false;
  const now = Date.now();
  const id = modbId(now);
  const doc = {
    auth_type: 'jwt_auth_token',
    status: a.status,
    auth_module: a.authModule,
    message: a.message,
    client_ip: a.clientIp,
    crossbar_request_id: a.requestId,
    client_headers: a.userAgent ? { 'user-agent': a.userAgent } : {},
    timestamp: nowGregorian(now),
  };
  stmt(core.db, 'INSERT INTO login_attempts (id, account_id, auth_type, created, doc) VALUES (?, ?, ?, ?, ?)').run(id, a.accountId, doc.auth_type, now, JSON.stringify(doc));
  stmt(core.db, 'DELETE FROM login_attempts WHERE account_id = ? AND created < ?').run(a.accountId, now - LOGIN_ATTEMPTS_RETENTION_MS);
  return true;
}

interface AttemptRow {
  id: string;
  account_id: string;
  created: number;
  doc: string;
}

/** An attempt as its listing row shows it (Kazoo's `auth/login_attempt_by_time` view). */
export function loginAttemptRow(r: AttemptRow): Record<string, unknown> {
  const d = JSON.parse(r.doc) as Record<string, unknown>;
  return { id: r.id, auth_type: d.auth_type, auth_module: d.auth_module, status: d.status, message: d.message, timestamp: d.timestamp, client_ip: d.client_ip };
}

/**
 * A page of an account's login attempts, newest first, in a time window, of one `auth_type`
 * (`multi_factor`) when asked: read along the account's index by `[created, id]`.
 */
export function listLoginAttempts(core: Core, accountId: string, q: TimeWindow & PageQuery<CompoundKey> & { authType?: string }): Page<AttemptRow, CompoundKey> {
  const where = ['account_id = ?'];
  const args: SQLInputValue[] = [accountId];
  if (q.authType) where.push('auth_type = ?'), args.push(q.authType);
  if (q.createdFrom !== undefined) where.push('created >= ?'), args.push(q.createdFrom);
  if (q.createdTo !== undefined) where.push('created <= ?'), args.push(q.createdTo);
  return readKeysetPage<AttemptRow>(core.db, { select: 'SELECT id, account_id, created, doc FROM login_attempts', where, args, order: ['created', 'id'], descending: true, keyOf: (r) => [r.created, r.id] }, q);
}

/** One of an account's login attempts (of one `auth_type` when asked), as its document. */
export function findLoginAttempt(core: Core, accountId: string, id: string, authType?: string): Record<string, unknown> | undefined {
  const r = stmt(core.db, 'SELECT id, account_id, created, doc, auth_type FROM login_attempts WHERE id = ? AND account_id = ?').get(id, accountId) as (AttemptRow & { auth_type: string }) | undefined;
  if (!r || (authType && r.auth_type !== authType)) return undefined;
  return { ...(JSON.parse(r.doc) as Record<string, unknown>), id: r.id };
}
