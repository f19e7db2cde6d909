import type { Core } from '../../core-type.js';
import type { ParsedPath } from '../../api-path.js';
import { errors, type ValidationErrors } from '../../errors.js';
import {
  checkRequest,
  chooseRules,
  explainCheck,
  validateRestrictionsDocument,
  validateTemplate,
  type EndpointRules,
  type LoginRestrictions,
  type RestrictionCheck,
  type RestrictionRequest,
  type RestrictionSubject,
  type RestrictionTemplate,
  type TemplateChoice,
} from '../../restrictions/index.js';
import { transaction, stmt } from '../../store/db.js';
import { findAccount, getAccount, updateAccount, type Account } from '../accounts/service.js';
import { findUser } from '../users/service.js';
import { tokenKey } from '../auth/service.js';

/** The system template's configuration category (Kazoo's `crossbar.token_restrictions` is an alias). */
export const SYSTEM_TEMPLATE_CATEGORY = 'api.token_restrictions';
/** The privilege level used when a token has no user, unless configured otherwise. */
export const DEFAULT_PRIV_LEVEL = 'admin';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The template part of a system configuration node: everything but its settings. */
function templateOfNode(node: Record<string, unknown>): RestrictionTemplate {
  const { default_priv_level: _level, ui_metadata: _ui, ...template } = node;
  return template as RestrictionTemplate;
}

/** The system template: the `default` node of `api.token_restrictions`, without its settings. */
export function systemTemplate(core: Core): RestrictionTemplate | undefined {
  const node = core.config.get(SYSTEM_TEMPLATE_CATEGORY)?.default;
  return isObject(node) ? templateOfNode(node) : undefined;
}

/** Checks the template of an `api.token_restrictions` document, as account templates are (its settings have their own schema). */
export function validateSystemTemplate(doc: Record<string, unknown>): ValidationErrors | undefined {
  const node = doc.default;
  if (node === undefined) return undefined;
  if (!isObject(node)) return { default: { type: { message: 'Value did not match type(s): object', target: 'object' } } };
  return validateTemplate(templateOfNode(node), 'default');
}

/** `default_priv_level` of the system template's configuration (default `admin`). */
export function defaultPrivLevel(core: Core): string {
  const v = core.config.value<unknown>(SYSTEM_TEMPLATE_CATEGORY, 'default_priv_level', DEFAULT_PRIV_LEVEL);
  return typeof v === 'string' && v !== '' ? v : DEFAULT_PRIV_LEVEL;
}

/**
 * An account's template. It lives in the account document's `restrictions` field, so the
 * token_restrictions endpoints and a POST of the account document edit the same thing.
 */
export function accountTemplate(core: Core, accountId: string): RestrictionTemplate | undefined {
  const r = findAccount(core, accountId)?.doc.restrictions;
  return isObject(r) ? (r as RestrictionTemplate) : undefined;
}

/** The account's template or the 404 Kazoo answers (`bad_identifier`, cause `token_restrictions`). */
export function getTemplate(core: Core, accountId: string): RestrictionTemplate {
  getAccount(core, accountId);
  const t = accountTemplate(core, accountId);
  if (!t) throw errors.badIdentifier('token_restrictions');
  return t;
}

/** Validates `data` (`{restrictions}`) and makes it the account's template. */
export function setTemplate(core: Core, accountId: string, data: unknown): RestrictionTemplate {
  const errs = validateRestrictionsDocument(data);
  if (errs) throw errors.validation(errs);
  const restrictions = (data as { restrictions: RestrictionTemplate }).restrictions;
  // the template is replaced whole, never merged into the one before
  transaction(core.db, () => updateAccount(core, accountId, { ...getAccount(core, accountId).doc, restrictions }, 'replace'));
  return restrictions;
}

/** Removes the account's template; answers what was removed. */
export function deleteTemplate(core: Core, accountId: string): RestrictionTemplate {
  return transaction(core.db, () => {
    const account = getAccount(core, accountId);
    const removed = getTemplate(core, accountId);
    const { restrictions: _gone, ...doc } = account.doc;
    updateAccount(core, accountId, doc, 'replace');
    return removed;
  });
}

/** Who a token is for, as template selection needs it. */
export interface TokenHolder {
  account: Account;
  ownerId?: string;
  method: string;
}

/** The chosen rules, with how the privilege level was found (for explanations). */
export interface TokenRuleChoice extends TemplateChoice {
  privLevel: string;
  /** `user`: the user's `priv_level`; `default`: no user, `default_priv_level` */
  privFrom: 'user' | 'default';
  /** true for a super-duper admin, whose tokens carry no rules */
  superduper: boolean;
}

/**
 * Chooses the rules a new token gets: none for a super-duper admin; otherwise from the
 * account template, else the system template, by method then privilege level.
 */
export function chooseTokenRules(core: Core, who: TokenHolder): TokenRuleChoice {
  const user = who.ownerId ? findUser(core, who.account.id, who.ownerId) : undefined;
  const level = user?.doc.priv_level;
  const privFrom = typeof level === 'string' && level !== '' ? 'user' : 'default';
  const privLevel = privFrom === 'user' ? (level as string) : defaultPrivLevel(core);
  if (who.account.superduper) return { privLevel, privFrom, superduper: true };
  const choice = chooseRules(
    { account: accountTemplate(core, who.account.id), system: systemTemplate(core) },
    who.method,
    privLevel,
  );
  return { ...choice, privLevel, privFrom, superduper: false };
}

/** The restriction request of a parsed path. */
export function restrictionRequest(method: string, path: ParsedPath): RestrictionRequest {
  return {
    method,
    endpoint: path.endpoint ?? '',
    args: path.args,
    accountId: path.accountId,
    segments: path.segments,
  };
}

/** The account-tree questions of a token's account, answered from the store. */
export function subjectOf(core: Core, accountId: string): RestrictionSubject {
  return {
    accountId,
    isDescendant: (id) => findAccount(core, id)?.tree.includes(accountId) ?? false,
  };
}

/** What a stored token carries, as the check needs it. */
export interface TokenRules {
  token?: string;
  accountId: string;
  superduper: boolean;
  rules?: EndpointRules;
  login?: LoginRestrictions;
}

/** A check of one request, or the refusal of a path that names nothing. */
export interface RequestVerdict extends RestrictionCheck {
  /** set when the path could not be parsed: a restricted token may not use it */
  invalidPath?: string;
  /** set for a token without restrictions (or a super-duper admin's) */
  unrestricted?: boolean;
  /** set for a path that needs no token: the server checks no restrictions there */
  noToken?: boolean;
}

// Rules never change once copied into a token: reading them once per token spares a parse
// (and, through the engine's cache keyed by the object, a compile) on every request.
const parsedByToken = new Map<string, { json: string; rules: EndpointRules }>();
const PARSED_CACHE_SIZE = 10_000;

/** Parses a token's stored rules, reusing the previous result while the stored text is the same. */
export function parseTokenRules(token: string, json: string): EndpointRules {
  const hit = parsedByToken.get(token);
  if (hit && hit.json === json) return hit.rules;
  const rules = JSON.parse(json) as EndpointRules;
  if (parsedByToken.size >= PARSED_CACHE_SIZE) parsedByToken.delete(parsedByToken.keys().next().value!);
  parsedByToken.set(token, { json, rules });
  return rules;
}

/**
 * Checks a request against a token's restrictions: the code the server runs on every request
 * and `tel restrictions test` runs offline. A path that cannot be parsed is refused.
 */
export function checkToken(core: Core, holder: TokenRules, method: string, path: ParsedPath): RequestVerdict {
  if (holder.superduper || (holder.rules == null && holder.login == null)) return { allowed: true, unrestricted: true };
  if (path.invalid) return { allowed: false, failedStep: 'endpoint', invalidPath: path.invalid };
  return checkRequest({ rules: holder.rules, login: holder.login }, restrictionRequest(method, path), subjectOf(core, holder.accountId));
}

/** Sentences explaining a verdict, one per step. */
export function explainVerdict(v: RequestVerdict): string[] {
  if (v.noToken) return ['The endpoint needs no token; the server checks no restrictions on it.'];
  if (v.unrestricted) return ['The token carries no restrictions; every request passes this check.'];
  if (v.invalidPath) return [`Endpoint: the path cannot name anything tel serves (${v.invalidPath}); a restricted token may not use it.`];
  return explainCheck(v);
}

/** The sentence of the step that denied (for the 403 body). */
export function denialReason(v: RequestVerdict): string {
  const lines = explainVerdict(v);
  if (v.failedStep === 'login') return lines[lines.length - 1];
  const label = v.failedStep ? `${v.failedStep[0].toUpperCase()}${v.failedStep.slice(1)}:` : '';
  return lines.find((l) => l.startsWith(label)) ?? lines[0];
}

/** A stored token as `tel restrictions test --token` reads it (without refreshing its use). */
export interface StoredTokenRules extends TokenRules {
  token: string;
  ownerId?: string;
  method: string;
  /** unix ms of the last use */
  modified: number;
}

/** Reads what a stored token carries, or undefined for an unknown token. */
export function storedTokenRules(core: Core, token: string): StoredTokenRules | undefined {
  const row = stmt(core.db, 'SELECT account_id, owner_id, method, restrictions, login_restrictions, modified FROM tokens WHERE id = ?')
    .get(tokenKey(token)) as
    | { account_id: string; owner_id: string | null; method: string; restrictions: string | null; login_restrictions: string | null; modified: number }
    | undefined;
  if (!row) return undefined;
  return {
    token,
    accountId: row.account_id,
    ownerId: row.owner_id ?? undefined,
    method: row.method,
    superduper: findAccount(core, row.account_id)?.superduper ?? false,
    rules: row.restrictions ? parseTokenRules(token, row.restrictions) : undefined,
    login: row.login_restrictions ? (JSON.parse(row.login_restrictions) as LoginRestrictions) : undefined,
    modified: row.modified,
  };
}
