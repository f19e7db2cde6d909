import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { stmt, transaction, type Db } from '../../store/db.js';
import { groupCommit } from '../../store/group-commit.js';
import { rowCache, type RowCache } from '../../store/cache.js';
import type { LoginRestrictions } from '../../restrictions/types.js';
import type { EndpointRules } from '../../restrictions/types.js';
import {
  findAccount,
  findAccountByApiKey,
  findAccountsByName,
  findAccountsByRealm,
  getAccount,
  masterAccount,
  resellerIdOf,
  type Account,
} from '../accounts/service.js';
import { findUser, storeLoginUpgrade, usersByCredentials } from '../users/service.js';
import { loginThrottle, type LoginTurn } from './throttle.js';
import { authMethodEnabled, logLoginAttempt } from './auth-modules.js';
import { userApps } from '../apps-store/service.js';
import { unixMsToGregorian } from '../../util/time.js';

/**
 * The key a token is stored under: its SHA-256. The database never holds a token that works, so
 * whoever reads the file cannot act as a logged-in user; the token itself is shown once, at issue.
 */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Token rows read on every request (see RowCache); writes here clear what they change. */
export function tokenCache(core: Core): RowCache<TokenRow> {
  return rowCache<TokenRow>(core.db, 'tokens');
}

/** Default idle lifetime of a token (`crossbar.auth` `token_expiry_s`). */
export const DEFAULT_TOKEN_EXPIRY_SECONDS = 3600;

/** Default absolute lifetime of a token, however often it is used (`crossbar.auth` `token_max_lifetime_s`). */
export const DEFAULT_TOKEN_MAX_LIFETIME_SECONDS = 86_400;

/** Authentication method names, as Kazoo calls them. */
export const METHOD_USER_AUTH = 'cb_user_auth';
export const METHOD_API_AUTH = 'cb_api_auth';

/** Who a request's token speaks for, as the pipeline and handlers see it. */
export interface AuthInfo {
  token: string;
  accountId: string;
  account: Account;
  ownerId?: string;
  method: string;
  isSuperduper: boolean;
  /** template rules copied into the token at login, if any */
  restrictions?: EndpointRules;
  /** second-form restrictions given in the login payload, if any */
  loginRestrictions?: LoginRestrictions;
}

export interface TokenRow {
  id: string;
  account_id: string;
  owner_id: string | null;
  method: string;
  restrictions: string | null;
  login_restrictions: string | null;
  created: number;
  modified: number;
}

/** How logins give tokens their restrictions; the token restrictions module provides them (none: no rules). */
export interface TokenRules {
  /** the template rules copied into a new token */
  select?: (core: Core, who: { account: Account; ownerId?: string; method: string }) => EndpointRules | undefined;
  /** reads a token's stored rules; may reuse what it read before for the same token */
  parse?: (token: string, json: string) => EndpointRules;
  /** checks the second form a login may carry (`data.restrictions`); throws a 400 */
  validateLogin?: (value: unknown) => LoginRestrictions;
}

/** The token idle lifetime currently configured, in seconds. */
export function tokenExpirySeconds(core: Core): number {
  const v = Number(core.config.value('crossbar.auth', 'token_expiry_s', DEFAULT_TOKEN_EXPIRY_SECONDS));
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_TOKEN_EXPIRY_SECONDS;
}

/** The absolute token lifetime currently configured, in seconds. */
export function tokenMaxLifetimeSeconds(core: Core): number {
  const v = Number(core.config.value('crossbar.auth', 'token_max_lifetime_s', DEFAULT_TOKEN_MAX_LIFETIME_SECONDS));
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_TOKEN_MAX_LIFETIME_SECONDS;
}

function signingSecret(core: Core): Buffer {
  const row = stmt(core.db, "SELECT value FROM meta WHERE key = 'token_secret'").get() as { value: string } | undefined;
  if (row) return Buffer.from(row.value, 'hex');
  const secret = randomBytes(32).toString('hex');
  stmt(core.db, "INSERT OR IGNORE INTO meta (key, value) VALUES ('token_secret', ?)").run(secret);
  return signingSecret(core);
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export interface IssueOptions {
  account: Account;
  ownerId?: string;
  method: string;
  /** explicit template rules (the CLI's `tokens create --restrictions`); else the templates decide */
  restrictions?: EndpointRules;
  loginRestrictions?: LoginRestrictions;
}

/**
 * Issues a token: JWT-shaped (`header.payload.signature`, as browser clients split it) around
 * 128 random bits, stored server-side so that expiry slides and revocation is real.
 */
export function issueToken(core: Core, opts: IssueOptions): string {
  const now = Date.now();
  const payload: Record<string, unknown> = {
    iss: 'tel',
    jti: randomBytes(16).toString('hex'),
    account_id: opts.account.id,
    method: opts.method,
    exp: Math.floor(now / 1000) + tokenExpirySeconds(core),
  };
  if (opts.ownerId) payload.owner_id = opts.ownerId;
  const unsigned = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}`;
  const token = `${unsigned}.${createHmac('sha256', signingSecret(core)).update(unsigned).digest('base64url')}`;
  const restrictions = opts.account.superduper
    ? undefined
    : (opts.restrictions ?? core.tokenRules.select?.(core, { account: opts.account, ownerId: opts.ownerId, method: opts.method }));
  stmt(core.db, 
      `INSERT INTO tokens (id, account_id, owner_id, method, restrictions, login_restrictions, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      tokenKey(token),
      opts.account.id,
      opts.ownerId ?? null,
      opts.method,
      restrictions ? JSON.stringify(restrictions) : null,
      opts.loginRestrictions ? JSON.stringify(opts.loginRestrictions) : null,
      now,
      now,
    );
  return token;
}

/**
 * Checks a token: unknown or idle longer than the expiry → 401 (and an expired one is removed).
 * A use refreshes `pvt_modified`, at most once per hundredth of the expiry to spare writes.
 */
export function authenticate(core: Core, token: string | undefined): AuthInfo {
  if (!token) throw errors.invalidCredentials();
  const tokens = tokenCache(core);
  // Cached by the token sent, so the hash is computed once per token, not once per request.
  const row = tokens.get(token, readToken);
  if (!row) throw errors.invalidCredentials();
  const now = Date.now();
  const expiryMs = tokenExpirySeconds(core) * 1000;
  if (now - row.modified > expiryMs || now - row.created > tokenMaxLifetimeSeconds(core) * 1000) {
    // the token is refused now; its row goes with the next commit (a request never waits for the file to drop it)
    touchLater(core, () => stmt(core.db, 'DELETE FROM tokens WHERE id = ?').run(row.id));
    tokens.clear(token);
    throw errors.invalidCredentials();
  }
  const account = findAccount(core, row.account_id);
  // A disabled account's tokens are revoked when it is disabled; this also covers any other way in.
  if (!account || account.doc.enabled === false) throw errors.invalidCredentials();
  if (now - row.modified > expiryMs / 100) {
    touchLater(core, () => stmt(core.db, 'UPDATE tokens SET modified = ? WHERE id = ?').run(now, row.id));
    row.modified = now;
  }
  let auth = authOfRow.get(row);
  if (auth === undefined || auth.account !== account) authOfRow.set(row, (auth = authInfo(core, token, row, account)));
  return auth;
}

/**
 * A token's row, by the token itself (its hash is the key stored), copied into a plain object: the
 * rows node:sqlite makes are dictionaries, each of its own hidden class, whose fields each request
 * would look up by name (copied, a token's check costs 370 fewer instructions, callgrind).
 */
function readToken(token: string, db: Db): TokenRow | undefined {
  const r = stmt(db, 'SELECT * FROM tokens WHERE id = ?').get(tokenKey(token)) as TokenRow | undefined;
  if (!r) return undefined;
  return {
    id: r.id,
    account_id: r.account_id,
    owner_id: r.owner_id,
    method: r.method,
    restrictions: r.restrictions,
    login_restrictions: r.login_restrictions,
    created: r.created,
    modified: r.modified,
  };
}

/**
 * What a cached token row stands for, built once per row and account: both come from row caches,
 * so a write that may change either (a revocation, a changed account, another process's commit)
 * makes a new row or account object and so a new answer. Shared by the requests of the token,
 * hence frozen. Built each time, it was 190 of the 8,400 bytes of garbage an authenticated GET
 * made (sampling heap profiler).
 */
const authOfRow = new WeakMap<TokenRow, AuthInfo>();

function authInfo(core: Core, token: string, row: TokenRow, account: Account): AuthInfo {
  return Object.freeze({
    token,
    accountId: row.account_id,
    account,
    ownerId: row.owner_id ?? undefined,
    method: row.method,
    isSuperduper: account.superduper,
    restrictions: row.restrictions ? (core.tokenRules.parse?.(token, row.restrictions) ?? JSON.parse(row.restrictions)) : undefined,
    loginRestrictions: row.login_restrictions ? JSON.parse(row.login_restrictions) : undefined,
  });
}

/**
 * Writes a token's bookkeeping (a use refreshing it, an expired one's removal) with the next group
 * commit: a read request never waits for, nor fails on, a file another process is writing. What
 * cannot be written is left for a later use.
 */
function touchLater(core: Core, write: () => unknown): void {
  groupCommit(core.db, write).catch(() => {});
}

/** Revokes a token for good: given itself, or the id `tel tokens list` shows (its SHA-256; no token is one). */
export function revokeToken(core: Core, tokenOrId: string): boolean {
  tokenCache(core).clear();
  const drop = stmt(core.db, 'DELETE FROM tokens WHERE id = ?');
  return drop.run(tokenOrId).changes > 0 || drop.run(tokenKey(tokenOrId)).changes > 0;
}

/**
 * Removes every token idle longer than the expiry; answers how many. The token cache is emptied
 * only when some went: a sweep that removes none leaves the requests' tokens where they are.
 */
export function sweepExpiredTokens(core: Core): number {
  const now = Date.now();
  const removed = Number(
    stmt(core.db, 'DELETE FROM tokens WHERE modified < ? OR created < ?').run(
      now - tokenExpirySeconds(core) * 1000,
      now - tokenMaxLifetimeSeconds(core) * 1000,
    ).changes,
  );
  if (removed > 0) tokenCache(core).clear();
  return removed;
}

/** A token as `tel tokens list` shows it: by id (its SHA-256), since the token itself is not kept. */
export interface TokenSummary {
  id: string;
  account_id: string;
  owner_id?: string;
  method: string;
  restricted: boolean;
  created: number;
  modified: number;
}

/** Tokens, optionally of one account, newest first. */
export function listTokens(core: Core, accountId?: string): TokenSummary[] {
  const rows = (
    accountId
      ? stmt(core.db, 'SELECT * FROM tokens WHERE account_id = ? ORDER BY created DESC').all(accountId)
      : stmt(core.db, 'SELECT * FROM tokens ORDER BY created DESC').all()
  ) as unknown as TokenRow[];
  return rows.map((r) => ({
    id: r.id,
    account_id: r.account_id,
    ...(r.owner_id ? { owner_id: r.owner_id } : {}),
    method: r.method,
    restricted: r.restrictions !== null || r.login_restrictions !== null,
    created: r.created,
    modified: r.modified,
  }));
}

/**
 * The `data` of a login answer and of `GET /v2/token_auth` (the seed's validity record); `apps`
 * lists the apps the user may use, their `api_url` defaulting to `apiUrl` (the URL the client reached).
 */
export function tokenRecord(
  core: Core,
  auth: Pick<AuthInfo, 'token' | 'account' | 'ownerId' | 'method'>,
  apiUrl?: string,
): Record<string, unknown> {
  const account = auth.account;
  const user = auth.ownerId ? findUser(core, account.id, auth.ownerId) : undefined;
  const master = masterAccount(core);
  const language = (user?.doc.language as string) ?? (account.doc.language as string) ?? 'en-US';
  const record: Record<string, unknown> = {
    account_id: account.id,
    account_name: account.name,
    apps: userApps(core, account.id, auth.ownerId, language, apiUrl),
    id: auth.token,
    is_reseller: account.reseller,
    language,
    method: auth.method,
    owner_id: auth.ownerId ?? null,
    reseller_id: resellerIdOf(core, account),
    is_master_account: master?.id === account.id,
  };
  if (user) record.priv_level = user.doc.priv_level;
  return record;
}

/**
 * What Monster UI reads when it opens an app by a link (`GET accounts/{id}/apps_link/authorize`,
 * Kazoo's `cb_apps_link`): the token's account, user, login method, creation (Gregorian seconds)
 * and the apps it may open; and the account the link names.
 */
export function appsLink(core: Core, auth: Pick<AuthInfo, 'token' | 'account' | 'ownerId' | 'method'>, accountId: string, apiUrl?: string): Record<string, unknown> {
  const record = tokenRecord(core, auth, apiUrl);
  const row = stmt(core.db, 'SELECT created FROM tokens WHERE id = ?').get(tokenKey(auth.token)) as { created: number } | undefined;
  const master = masterAccount(core)?.id;
  const target = accountId === auth.account.id ? auth.account : getAccount(core, accountId);
  return {
    auth_token: {
      account_id: record.account_id,
      owner_id: record.owner_id ?? undefined,
      account_name: record.account_name,
      method: record.method,
      created: row ? unixMsToGregorian(row.created) : undefined,
      language: record.language,
      is_reseller: record.is_reseller,
      reseller_id: record.reseller_id,
      apps: record.apps,
      is_master: record.is_master_account,
    },
    account: {
      account_id: target.id,
      account_name: target.name,
      language: (target.doc.language as string | undefined) ?? 'en-US',
      is_reseller: target.reseller,
      reseller_id: resellerIdOf(core, target),
      is_master: target.id === master,
    },
  };
}

/**
 * `auth/tokeninfo`: what a token stands for, as a login answers it, plus `exp` (Unix seconds: when
 * it ends unless used again). No token is a 404 (`where` it was looked for: request or params, as
 * Kazoo says); an unknown, expired or revoked one the 401. Looking counts as a use.
 */
export function tokenInfo(core: Core, token: unknown, where: 'request' | 'params', apiUrl?: string): Record<string, unknown> {
  if (typeof token !== 'string' || token === '') throw errors.missingToken(where);
  const auth = authenticate(core, token);
  // the row as that check left it, refreshed by this look (the file has it with the next commit)
  const row = tokenCache(core).get(token, readToken);
  // Stryker disable next-line ConditionalExpression: the row authenticate has just read, unless another process removed it in between
  if (!row) throw errors.invalidCredentials();
  const endsMs = Math.min(row.modified + tokenExpirySeconds(core) * 1000, row.created + tokenMaxLifetimeSeconds(core) * 1000);
  return { ...tokenRecord(core, auth, apiUrl), exp: Math.floor(endsMs / 1000) };
}

export const userAuthValidator = compileValidator({
  type: 'object',
  required: ['credentials'],
  properties: {
    credentials: { type: 'string', minLength: 1, maxLength: 64 },
    method: { type: 'string', enum: ['md5', 'sha'], default: 'md5' },
    account_name: { type: 'string', minLength: 1, maxLength: 128 },
    account_realm: { type: 'string', minLength: 4, maxLength: 253 },
    realm: { type: 'string', minLength: 4, maxLength: 253 },
    restrictions: { type: 'object' },
  },
});

export const apiAuthValidator = compileValidator({
  type: 'object',
  required: ['api_key'],
  properties: {
    api_key: { type: 'string', minLength: 1, maxLength: 128 },
    restrictions: { type: 'object' },
  },
});

function loginRestrictionsOf(core: Core, data: Record<string, unknown>): LoginRestrictions | undefined {
  if (data.restrictions === undefined) return undefined;
  return core.tokenRules.validateLogin ? core.tokenRules.validateLogin(data.restrictions) : (data.restrictions as LoginRestrictions);
}

/** Where a login comes from: the throttle's key, what its attempt logs. */
export interface LoginSource {
  address: string;
  /** the server's `/v2/` URL as the client reached it (the `api_url` of the apps listed) */
  apiUrl?: string;
  /** the request's id and client, for the login attempts log */
  requestId?: string;
  userAgent?: string;
}

/** A login attempt's fields that come from its request. */
function attemptOf(account: Account, authModule: string, from: LoginSource) {
  return { accountId: account.id, authModule, clientIp: from.address, requestId: from.requestId, userAgent: from.userAgent };
}

/**
 * Refuses a login whose method the account's settings disable (Kazoo's 401), logging the attempt
 * when the settings ask; called outside the login's transaction, whose failure would undo the log.
 */
function refuseDisabled(core: Core, account: Account, authModule: string, from: LoginSource, turn: LoginTurn): void {
  if (authMethodEnabled(core, account, authModule)) return;
  turn.failed();
  logLoginAttempt(core, account, { ...attemptOf(account, authModule, from), status: 'failed', message: `authentication module ${authModule} is disabled` });
  throw errors.invalidCredentials();
}

/** Logs a login that made a token, when the account's settings ask. */
function logSuccess(core: Core, account: Account, authModule: string, from: LoginSource): void {
  logLoginAttempt(core, account, { ...attemptOf(account, authModule, from), status: 'success', message: 'authentication resulted in token creation' });
}

/** `PUT /v2/user_auth`: credentials (md5/sha1 of `username:password`) plus an account locator. */
export async function userAuth(core: Core, input: unknown, from: LoginSource): Promise<{ token: string; data: Record<string, unknown> }> {
  const data = userAuthValidator(input ?? {});
  const realm = (data.account_realm ?? data.realm) as string | undefined;
  const candidates: Account[] = [];
  if (realm) candidates.push(...findAccountsByRealm(core, realm));
  if (data.account_name) candidates.push(...findAccountsByName(core, String(data.account_name)));
  // counted against the accounts the name resolves to, however it is spelled
  const turn = await loginThrottle(core).turn({ address: from.address, accounts: candidates.map((a) => a.id) });
  const method = data.method === 'sha' ? 'sha' : 'md5';
  const form = String(data.credentials);
  for (const account of candidates) {
    if (account.doc.enabled === false) continue;
    const matches = await usersByCredentials(core, account.id, form, method);
    if (matches.length === 1) {
      const [match] = matches;
      const login = loginRestrictionsOf(core, data);
      refuseDisabled(core, account, METHOD_USER_AUTH, from, turn);
      turn.succeeded(account.id);
      return transaction(core.db, () => {
        logSuccess(core, account, METHOD_USER_AUTH, from);
        storeLoginUpgrade(core, match);
        const token = issueToken(core, { account, ownerId: match.user.id, method: METHOD_USER_AUTH, loginRestrictions: login });
        return { token, data: tokenRecord(core, { token, account, ownerId: match.user.id, method: METHOD_USER_AUTH }, from.apiUrl) };
      });
    }
  }
  turn.failed();
  // a failure is logged where the name or realm named one account
  if (candidates.length === 1) {
    const [account] = candidates;
    logLoginAttempt(core, account, { ...attemptOf(account, METHOD_USER_AUTH, from), status: 'failed', message: 'invalid credentials' });
  }
  throw errors.invalidCredentials();
}

/** `PUT /v2/api_auth`: an account's API key. */
export async function apiAuth(core: Core, input: unknown, from: LoginSource): Promise<{ token: string; data: Record<string, unknown> }> {
  const data = apiAuthValidator(input ?? {});
  const turn = await loginThrottle(core).turn({ address: from.address, accounts: [] });
  const account = findAccountByApiKey(core, String(data.api_key));
  if (!account || account.doc.enabled === false) {
    turn.failed();
    throw errors.invalidCredentials();
  }
  refuseDisabled(core, account, METHOD_API_AUTH, from, turn);
  turn.succeeded();
  const login = loginRestrictionsOf(core, data);
  return transaction(core.db, () => {
    logSuccess(core, account, METHOD_API_AUTH, from);
    const token = issueToken(core, { account, method: METHOD_API_AUTH, loginRestrictions: login });
    return { token, data: tokenRecord(core, { token, account, method: METHOD_API_AUTH }, from.apiUrl) };
  });
}
