import { isDeepStrictEqual } from 'node:util';
import type { Core } from '../../core-type.js';
import { stmt, transaction, type Db } from '../../store/db.js';
import { clearRowCaches, rowCache } from '../../store/cache.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import { publishObject, stripServerFields } from '../documents/store.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { checkRevision, isDocId, newApiKey, newId, nextRevision } from '../../util/ids.js';
import { unixMsToGregorian } from '../../util/time.js';
import { mergePatch } from '../../util/json.js';
import { mergeErrors, throwIfErrors } from '../../schema/validate.js';
import { validateAccount } from './schema.js';
import { wholeDoc } from '../../util/doc-filter.js';
import { addToTree, hasChildren, MAX_TREE_DEPTH, removeFromTree, renameInTree } from './tree-index.js';

/** The login method of API-key tokens (`cb_api_auth`, as the auth module names it). */
const API_KEY_METHOD = 'cb_api_auth';

/** An account as the service layer sees it. */
export interface Account {
  id: string;
  parentId: string | null;
  /** ancestors, root first, direct parent last */
  tree: string[];
  name: string;
  realm: string;
  apiKey: string;
  superduper: boolean;
  reseller: boolean;
  doc: Record<string, unknown>;
  rev: string;
  created: number;
  modified: number;
}

interface Row {
  id: string;
  parent_id: string | null;
  tree: string;
  name: string;
  realm: string;
  api_key: string;
  superduper: number;
  reseller: number;
  doc: string;
  rev: string;
  created: number;
  modified: number;
}

function fromRow(r: Row): Account {
  return {
    id: r.id,
    parentId: r.parent_id,
    tree: JSON.parse(r.tree),
    name: r.name,
    realm: r.realm,
    apiKey: r.api_key,
    superduper: r.superduper === 1,
    reseller: r.reseller === 1,
    doc: JSON.parse(r.doc),
    rev: r.rev,
    created: r.created,
    modified: r.modified,
  };
}

/** A module's check of account documents beyond the account schema (e.g. `restrictions`). */
export type AccountDocCheck = (doc: Record<string, unknown>) => ValidationErrors | undefined;

/** Normalised name for lookups: lower case, alphanumerics only (as Kazoo's listing_by_name). */
export function normaliseName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Accounts read on every request; this process's writes clear it, other processes' too. */
function cache(core: Core) {
  return rowCache<Account>(core.db, 'accounts');
}

/** The account, or undefined. The object is shared and frozen: copy before changing. */
export function findAccount(core: Core, id: string): Account | undefined {
  return cache(core).get(id, readAccount);
}

/** An account as its row holds it, frozen (for the cache); a string that cannot be an id is a miss (the cache keeps it, bounded). */
function readAccount(id: string, db: Db): Account | undefined {
  if (!isDocId(id)) return undefined;
  const r = stmt(db, 'SELECT * FROM accounts WHERE id = ?').get(id) as Row | undefined;
  if (!r) return undefined;
  const a = fromRow(r);
  Object.freeze(a.tree);
  return Object.freeze(a);
}

/** The account or a 404 `bad_identifier`. */
export function getAccount(core: Core, id: string): Account {
  const a = findAccount(core, id);
  if (!a) throw errors.badIdentifier(id);
  return a;
}

/** Accounts whose realm (case-insensitive) is `realm`. */
export function findAccountsByRealm(core: Core, realm: string): Account[] {
  return (stmt(core.db, 'SELECT * FROM accounts WHERE realm = ?').all(realm.toLowerCase()) as unknown as Row[]).map(fromRow);
}

/** Accounts whose normalised name equals that of `name`. */
export function findAccountsByName(core: Core, name: string): Account[] {
  return (stmt(core.db, 'SELECT * FROM accounts WHERE name_norm = ?').all(normaliseName(name)) as unknown as Row[]).map(fromRow);
}

/**
 * The accounts a person's reference to one may mean (every account option of the CLI): the account
 * with that id; else those with that name (compared as names are: case, spaces and punctuation
 * aside) or that realm. Several answers are for the caller to refuse, listing them.
 */
export function accountsReferredTo(core: Core, ref: string): Account[] {
  const byId = findAccount(core, ref);
  if (byId) return [byId];
  const found = new Map<string, Account>();
  if (normaliseName(ref) !== '') for (const a of findAccountsByName(core, ref)) found.set(a.id, a);
  for (const a of findAccountsByRealm(core, ref)) found.set(a.id, a);
  return [...found.values()];
}

/** The account holding this API key. */
export function findAccountByApiKey(core: Core, apiKey: string): Account | undefined {
  const r = stmt(core.db, 'SELECT * FROM accounts WHERE api_key = ?').get(apiKey) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** The master account (the oldest super-duper admin root), if the database is initialised. */
export function masterAccount(core: Core): Account | undefined {
  const r = stmt(core.db, 'SELECT * FROM accounts WHERE parent_id IS NULL AND superduper = 1 ORDER BY created LIMIT 1')
    .get() as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** True when `accountId` is a strict descendant of `ancestorId`. */
export function isDescendant(account: Account, ancestorId: string): boolean {
  return account.tree.includes(ancestorId);
}

/**
 * The nearest account above this one that is a reseller (its provider), if any. The master
 * account counts: it is created a reseller.
 */
export function resellerAbove(core: Core, account: Account): Account | undefined {
  for (let i = account.tree.length - 1; i >= 0; i--) {
    const a = findAccount(core, account.tree[i]);
    if (a?.reseller) return a;
  }
  return undefined;
}

const resellerIds = new WeakMap<Account, string>();

/**
 * Kazoo's `reseller_id` of an account: the nearest reseller above it, else the master account
 * (the master account's own is itself), so that it is always there. Remembered per cached account
 * object (every simulated call asks): promoting, demoting or moving an account empties the row
 * cache, so the next call gets a new object and works it out again.
 */
export function resellerIdOf(core: Core, account: Account): string {
  let id = resellerIds.get(account);
  if (id === undefined) {
    id = resellerAbove(core, account)?.id ?? masterAccount(core)?.id ?? account.tree[0] ?? account.id;
    resellerIds.set(account, id);
  }
  return id;
}

/** Direct children of an account, by name. */
export function listChildren(core: Core, id: string): Account[] {
  return (
    stmt(core.db, 'SELECT a.* FROM account_tree t JOIN accounts a ON a.id = t.account_id WHERE t.ancestor_id = ? AND t.depth = 1 ORDER BY t.name, t.account_id')
      .all(id) as unknown as Row[]
  ).map(fromRow);
}

/** Every descendant of an account (not the account itself), by name. */
export function listDescendants(core: Core, id: string): Account[] {
  return (
    stmt(core.db, `SELECT a.* FROM account_tree t JOIN accounts a ON a.id = t.account_id WHERE t.ancestor_id = ? ORDER BY t.name, t.account_id`)
      .all(id) as unknown as Row[]
  ).map(fromRow);
}

/** Every account, in creation order. */
export function listAccounts(core: Core): Account[] {
  return (stmt(core.db, 'SELECT * FROM accounts ORDER BY created, id').all() as unknown as Row[]).map(fromRow);
}

/** True once the database holds an account. */
export function hasAccounts(core: Core): boolean {
  return stmt(core.db, 'SELECT 1 FROM accounts LIMIT 1').get() !== undefined;
}

/**
 * Fields the API derives from the account row, and the billing fields Kazoo drops from what a
 * client sends: sending them sets nothing.
 */
const DERIVED_FIELDS = ['superduper_admin', 'is_reseller', 'created', 'billing_mode', 'wnm_allow_additions', 'reseller_id', 'trial_time_left'];

/** A client's account document without server fields (Monster UI posts whole documents back). */
function clientFields(input: Record<string, unknown>): Record<string, unknown> {
  const doc = stripServerFields(input);
  for (const key of DERIVED_FIELDS) delete doc[key];
  return doc;
}

/**
 * An account's document as the API stores and deletes it: its public fields and `id` (Kazoo's
 * `kz_doc:public_fields/1`, what a DELETE answers).
 */
export function accountDoc(a: Account): Record<string, unknown> {
  return { ...clientFields(a.doc), id: a.id, name: a.name, realm: a.realm };
}

/**
 * Kazoo's `billing_mode` of an account as a caller sees it (`cb_accounts` `leak_billing_mode/2`):
 * `limits_only` when the caller's account is the account's reseller, `normal` when the master
 * account is, `manual` otherwise.
 */
export type BillingMode = 'limits_only' | 'normal' | 'manual';

/** The billing mode of `a` for a caller of `callerAccountId`. */
export function billingModeOf(core: Core, a: Account, callerAccountId: string): BillingMode {
  const resellerId = resellerIdOf(core, a);
  if (resellerId === callerAccountId) return 'limits_only';
  return resellerId === masterAccount(core)?.id ? 'normal' : 'manual';
}

const answers = new WeakMap<Account, Map<string, Readonly<Record<string, unknown>>>>();

/**
 * The public JSON of an account as the API answers it: its document and the private fields
 * Kazoo's `cb_accounts` copies into every answer but a deletion's (`leak_pvt_fields/2`):
 * `wnm_allow_additions`, `superduper_admin`, `created`, `enabled`, `reseller_id`, `is_reseller`
 * and, for a caller (`callerAccountId`), `billing_mode`. Built once per cached account row and
 * caller's billing mode (the row cache hands out the same frozen object until the account
 * changes), and frozen too.
 */
export function accountJson(core: Core, a: Account, callerAccountId?: string): Readonly<Record<string, unknown>> {
  const mode = callerAccountId === undefined ? '' : billingModeOf(core, a, callerAccountId);
  let byMode = answers.get(a);
  if (!byMode) answers.set(a, (byMode = new Map()));
  let json = byMode.get(mode);
  if (!json) byMode.set(mode, (json = Object.freeze(buildAccountJson(core, a, mode))));
  return json;
}

function buildAccountJson(core: Core, a: Account, mode: string): Record<string, unknown> {
  const out = accountDoc(a);
  out.wnm_allow_additions = false;
  out.superduper_admin = a.superduper;
  out.created = unixMsToGregorian(a.created);
  out.enabled = a.doc.enabled !== false;
  out.reseller_id = resellerIdOf(core, a);
  out.is_reseller = a.reseller;
  if (mode) out.billing_mode = mode;
  return out;
}

/** An account as its listings' filters see it: as its GET answers it (to a caller of `callerAccountId`), with Kazoo's private fields. */
export function accountFilterDoc(core: Core, a: Account, callerAccountId?: string): Record<string, unknown> {
  return wholeDoc(accountJson(core, a, callerAccountId), { id: a.id, type: 'account', rev: a.rev, accountId: a.id, created: a.created, modified: a.modified });
}

/** The realm an account gets when it is created without one. */
export function defaultRealm(id: string): string {
  return `${id.slice(0, 8)}.tel.local`;
}

/**
 * The realm an account created without one gets: its id's first eight characters, or its whole id
 * when another account already has that (at 10,000 accounts, one lab in a hundred would meet it).
 */
function unusedDefaultRealm(core: Core, id: string): string {
  const short = defaultRealm(id);
  return findAccountsByRealm(core, short).length === 0 ? short : `${id}.tel.local`;
}

/** The timezone an account gets when its document has none: system config `accounts` `default_timezone`. */
export function defaultTimezone(core: Core): string {
  const tz = core.config.value<unknown>('accounts', 'default_timezone', DEFAULT_TIMEZONE);
  return typeof tz === 'string' && tz !== '' ? tz : DEFAULT_TIMEZONE;
}

/** Kazoo's default timezone of accounts. */
const DEFAULT_TIMEZONE = 'America/Los_Angeles';

/**
 * Checks an account document as Kazoo does, in place: a timezone when it has none, the realm
 * without spaces, the schema (defaults filled), the modules' checks (`restrictions`), then a realm
 * and a name (compared as letters and digits) that no other account has.
 */
function checkDoc(core: Core, doc: Record<string, unknown>, selfId?: string): void {
  if (doc.timezone === undefined) doc.timezone = defaultTimezone(core);
  if (typeof doc.realm === 'string') doc.realm = doc.realm.replace(/ /g, '');
  const base = validateAccount.check(doc);
  const extra = mergeErrors(...core.accountDocChecks.map((c) => c(doc)));
  const unique: ValidationErrors = {};
  if (typeof doc.realm === 'string' && findAccountsByRealm(core, doc.realm).some((a) => a.id !== selfId)) {
    unique.realm = { unique: { message: 'Account realm already in use', cause: doc.realm } };
  }
  if (typeof doc.name === 'string' && findAccountsByName(core, doc.name).some((a) => a.id !== selfId)) {
    unique.name = { unique: { message: 'Account name already in use', cause: doc.name } };
  }
  throwIfErrors(mergeErrors(base, extra, Object.keys(unique).length > 0 ? unique : undefined));
}

export interface CreateAccountOptions {
  parentId?: string;
  superduper?: boolean;
  reseller?: boolean;
  id?: string;
  /** the API key to give it (`tel apply` with a key chosen for CI); generated when absent */
  apiKey?: string;
}

/** Creates an account under `parentId` (or a root when none); validates the document. */
export function createAccount(core: Core, input: Record<string, unknown>, opts: CreateAccountOptions = {}): Account {
  const doc = clientFields(input);
  const id = opts.id ?? newId();
  // an empty realm is none, as Kazoo reads it (Account Manager's wizard sends "" when left blank)
  if (doc.realm === undefined || doc.realm === '') doc.realm = unusedDefaultRealm(core, id);
  checkDoc(core, doc);
  doc.realm = String(doc.realm).toLowerCase();
  return transaction(core.db, () => {
    let tree: string[] = [];
    if (opts.parentId) {
      const parent = getAccount(core, opts.parentId);
      tree = [...parent.tree, parent.id];
      if (tree.length > MAX_TREE_DEPTH) {
        throw errors.invalidField('tree', 'maximum', `an account sits at most ${MAX_TREE_DEPTH} levels below the master account: its parent is ${parent.tree.length} levels below it`, { target: MAX_TREE_DEPTH });
      }
    }
    const now = Date.now();
    const body = JSON.stringify(doc);
    const rev = nextRevision(undefined, body);
    stmt(core.db, 
        `INSERT INTO accounts (id, parent_id, tree, name, name_norm, realm, api_key, superduper, reseller, doc, rev, created, modified)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        opts.parentId ?? null,
        JSON.stringify(tree),
        String(doc.name),
        normaliseName(String(doc.name)),
        String(doc.realm),
        opts.apiKey ?? newApiKey(),
        opts.superduper ? 1 : 0,
        opts.reseller || opts.superduper ? 1 : 0,
        body,
        rev,
        now,
        now,
      );
    addToTree(core, id, String(doc.name), tree);
    cache(core).clear(id);
    const account = getAccount(core, id);
    publishObject(core, 'account', id, id, 'doc_created');
    return account;
  });
}

/**
 * How a write meets an account's stored document: `post`, as Kazoo's POST (the document is
 * validated as sent, its defaults filled, then merged deeply into the stored one: Kazoo's accounts
 * keep the fields a POST leaves out); `merge`, as a PATCH (merged into the stored one, then the
 * whole validated); `replace` (the document given becomes the document: tel's own writers, such
 * as the token restriction endpoints and labs).
 */
export type AccountWrite = 'post' | 'merge' | 'replace';

/** Changes an account's document (see AccountWrite). */
export function updateAccount(
  core: Core,
  id: string,
  input: Record<string, unknown>,
  mode: AccountWrite,
  ifMatch?: string,
): Account {
  return transaction(core.db, () => {
    const current = getAccount(core, id);
    const stored = { ...clientFields(current.doc), name: current.name, realm: current.realm };
    const incoming = clientFields(input);
    const sent = mode === 'merge' ? mergePatch(stored, incoming) : incoming;
    if (sent.realm === undefined || sent.realm === '') sent.realm = current.realm;
    checkDoc(core, sent, id);
    const doc = mode === 'post' ? mergePatch(stored, sent) : sent;
    doc.realm = String(doc.realm).toLowerCase();
    checkRevision(current.rev, ifMatch);
    const body = JSON.stringify(doc);
    const rev = nextRevision(current.rev, body);
    const res = stmt(core.db, 
        'UPDATE accounts SET name = ?, name_norm = ?, realm = ?, doc = ?, rev = ?, modified = ? WHERE id = ? AND rev = ?',
      )
      .run(String(doc.name), normaliseName(String(doc.name)), String(doc.realm), body, rev, Date.now(), id, current.rev);
    if (res.changes === 0) throw errors.conflict();
    if (String(doc.name) !== current.name) renameInTree(core, id, String(doc.name));
    cache(core).clear(id);
    // The tokens of a disabled account die with it (its logins are refused too).
    if (doc.enabled === false && current.doc.enabled !== false) revokeAccountTokens(core, id);
    publishObject(core, 'account', id, id, 'doc_edited');
    return getAccount(core, id);
  });
}

/**
 * Sets one field of an account's document (`undefined` removes it), the rest kept as stored: what
 * Kazoo's modules that keep their settings on the account do (`metaflows`, `access_lists`,
 * `comments`). The whole document is checked again, as any write of it.
 */
export function setAccountField(core: Core, id: string, field: string, value: unknown): Account {
  return transaction(core.db, () => {
    const { [field]: _old, ...rest } = getAccount(core, id).doc;
    return updateAccount(core, id, value === undefined ? rest : { ...rest, [field]: value }, 'replace');
  });
}

/** Deletes an account without descendants, with its documents and tokens. */
export function deleteAccount(core: Core, id: string): Account {
  return transaction(core.db, () => {
    const account = getAccount(core, id);
    if (!account.parentId && account.superduper && masterAccount(core)?.id === id) {
      throw errors.invalidField('account', 'forbidden', 'the master account cannot be deleted');
    }
    if (hasChildren(core, id)) {
      throw errors.invalidField('account', 'has_descendants', 'delete the sub-accounts first');
    }
    // Published while the account still exists, so subscribers can find its ancestors.
    publishObject(core, 'account', id, id, 'doc_deleted');
    for (const table of core.accountTables) stmt(core.db, `DELETE FROM ${table} WHERE account_id = ?`).run(id);
    stmt(core.db, 'DELETE FROM accounts WHERE id = ?').run(id);
    removeFromTree(core, id);
    // its rows went from every account table: no cache may still hold them
    clearRowCaches(core.db);
    return account;
  });
}

/**
 * Deleting or disabling an account needs an admin of it or of an ancestor (a plain user must not
 * lock everyone out of their own account), and so does changing its `ips` (which log in without
 * credentials). `input` is the document sent, or `delete`.
 */
export function checkAccountWrite(core: Core, actor: Actor, accountId: string, input: Record<string, unknown> | 'delete'): void {
  if (isAccountAdmin(core, actor)) return;
  if (input === 'delete') throw errors.forbidden('deleting an account needs an admin of it or of an ancestor');
  const enabled = input.enabled;
  const current = findAccount(core, accountId)?.doc;
  if ((enabled === false || enabled === 'false') && current?.enabled !== false) {
    throw errors.forbidden('disabling an account needs an admin of it or of an ancestor');
  }
  if (input.ips !== undefined && !isDeepStrictEqual(input.ips, current?.ips)) throw ipsForbidden();
}

/** An address in an account's `ips` logs in to it without credentials (`PUT /v2/ip_auth`): an admin's setting. */
const ipsForbidden = () => errors.forbidden('setting the addresses that log in to an account (ips) needs an admin of it or of an ancestor');

/** Creating an account with `ips` needs an admin of the parent (see checkAccountWrite). */
export function checkAccountCreate(core: Core, actor: Actor, input: Record<string, unknown>): void {
  if (input.ips !== undefined && !isAccountAdmin(core, actor)) throw ipsForbidden();
}

/** Revokes tokens of an account: all of them, or only those of one login method. */
export function revokeAccountTokens(core: Core, accountId: string, method?: string): void {
  if (method) stmt(core.db, 'DELETE FROM tokens WHERE account_id = ? AND method = ?').run(accountId, method);
  else stmt(core.db, 'DELETE FROM tokens WHERE account_id = ?').run(accountId);
  rowCache(core.db, 'tokens').clear();
}

/**
 * An account's API key, for an admin only: an API-key login is unrestricted admin-level
 * access, so a plain user who could read the key would escape their token restrictions.
 */
export function readApiKey(core: Core, actor: Actor, accountId: string): string {
  const account = getAccount(core, accountId);
  if (!isAccountAdmin(core, actor)) throw errors.forbidden('reading the API key needs an admin of the account');
  return account.apiKey;
}

/**
 * Gives an account a new API key (admins only, as reading it), generated or `apiKey` when given;
 * the tokens obtained with the old key stop working at once, since they stood for a key that may
 * have leaked.
 */
export function rotateApiKey(core: Core, actor: Actor | undefined, id: string, apiKey: string = newApiKey()): Account {
  getAccount(core, id);
  if (actor && !isAccountAdmin(core, actor)) throw errors.forbidden('creating an API key needs an admin of the account');
  return transaction(core.db, () => {
    stmt(core.db, 'UPDATE accounts SET api_key = ?, modified = ? WHERE id = ?').run(apiKey, Date.now(), id);
    cache(core).clear(id);
    revokeAccountTokens(core, id, API_KEY_METHOD);
    return getAccount(core, id);
  });
}
