import { createHmac, randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { compileValidator, mergeErrors, throwIfErrors } from '../../schema/validate.js';
import { userSchema } from './schema.js';
import { deleteDoc, docsPage, findDoc, getDoc, insertDoc, listDocs, publicDoc, stripServerFields, updateDoc, type StoredDoc } from '../documents/store.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { mergePatch } from '../../util/json.js';
import {
  hashPassword,
  hashPasswordSync,
  LOGIN_FIELD,
  loginHash,
  loginForms,
  SALTED_FIELD,
  saltedHint,
  sameSecret,
  verifySalted,
  type LoginHashes,
  type SaltedCredentials,
} from './credentials.js';
import { loginKey } from './login-key.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';

const validateUser = compileValidator(userSchema);

/**
 * Kazoo's checks of a user beyond its schema: its username (stored in lower case) and its hotdesk
 * id are no other user's in the account.
 */
function uniqueErrors(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  // `lower`: a user stored before usernames were lower-cased still counts. Each check is one search
  // of an index on its very expression (`docs_user_name`, `docs_user_hotdesk`), whatever the
  // account's size
  const taken = (field: string, value: string) =>
    stmt(core.db, `SELECT 1 FROM docs WHERE account_id = ? AND kind = 'user' AND ${field} = ? AND id IS NOT ? LIMIT 1`)
      .get(accountId, value, selfId ?? null) !== undefined;
  const errs: ValidationErrors = {};
  if (hasText(doc.username) && taken("lower(json_extract(doc, '$.username'))", doc.username)) {
    errs.username = { unique: { message: 'Username must be unique within account', cause: doc.username } };
  }
  const hotdesk = (doc.hotdesk as Record<string, unknown> | undefined)?.id;
  if (hasText(hotdesk) && taken("json_extract(doc, '$.hotdesk.id')", hotdesk)) {
    errs['hotdesk.id'] = { unique: { message: 'Hotdesk ID must be unique within account', cause: hotdesk } };
  }
  return Object.keys(errs).length > 0 ? errs : undefined;
}

/** A value Kazoo does not read as empty (absent, null or ""). */
const hasText = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * A user document checked as Kazoo checks it, in place: the username in lower case, the schema
 * (defaults filled, string forms fixed), then the username and hotdesk id unique in the account.
 */
function checkedUser(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): Record<string, unknown> {
  if (typeof doc.username === 'string') doc.username = doc.username.toLowerCase();
  throwIfErrors(mergeErrors(validateUser.check(doc), uniqueErrors(core, accountId, doc, selfId)));
  return doc;
}

/** The username Kazoo makes up for a user given a password but no username. */
function generatedUsername(): string {
  return `user_${randomBytes(8).toString('hex')}`;
}

/** The public JSON of a user (never the password or its hashes). */
export function userJson(u: StoredDoc): Record<string, unknown> {
  return publicDoc(u);
}

/** Every user of an account. */
export function listUsers(core: Core, accountId: string): StoredDoc[] {
  return listDocs(core, 'user', accountId);
}

/** One page of an account's users, oldest first (newest first when `descending`). */
export function usersPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending = false): Page<StoredDoc, CompoundKey> {
  return docsPage(core, 'user', accountId, q, descending);
}

/** One user or a 404. */
export function getUser(core: Core, accountId: string, id: string): StoredDoc {
  return getDoc(core, 'user', accountId, id);
}

/** One user or undefined. */
export function findUser(core: Core, accountId: string, id: string): StoredDoc | undefined {
  return findDoc(core, 'user', accountId, id);
}

/**
 * A password hashed ahead of its write, for this account and username: by the server's routes on
 * a hash thread (`hashPasswordOf`), by `tel apply` while it plans, outside its transaction.
 */
export interface HashedPassword {
  accountId: string;
  username: string;
  hashes: LoginHashes;
}

/** How a write may store the password: hashed ahead (else it is hashed here, blocking: the CLI). */
export interface PasswordOptions {
  hashed?: HashedPassword;
  /**
   * the stored key of the token making the change (`tokenKey`), when it is the user's own: a
   * password they change themselves ends their other sessions, not this one
   */
  ownTokenKey?: string;
}

/** The fields a user's `pvt` loses when its password is set: what earlier versions stored. */
const OLD_PASSWORD_FIELDS = [SALTED_FIELD, 'pvt_md5_auth', 'pvt_sha1_auth'];

function withPassword(core: Core, pvt: Record<string, unknown>, accountId: string, username: string, password: string, opts: PasswordOptions): Record<string, unknown> {
  const h = opts.hashed;
  // hashed for another name (the user renamed while the hash was computed) would never log in
  if (h && (h.accountId !== accountId || h.username.toLowerCase() !== username.toLowerCase())) throw errors.conflict();
  const kept = Object.fromEntries(Object.entries(pvt).filter(([k]) => !OLD_PASSWORD_FIELDS.includes(k)));
  return { ...kept, [LOGIN_FIELD]: h?.hashes ?? hashPasswordSync(loginKey(core, true), accountId, username, password) };
}

/**
 * Hashes the password a user write carries, on a hash thread (the event loop answers other
 * requests meanwhile): what the server's routes hand to `createUser` and `updateUser`. The hash is
 * of the username the write leaves: the one sent, else (a PATCH) the stored user's, else the one
 * Kazoo makes up, put in `input` here so that the write stores that very name. Nothing to hash
 * without a password.
 */
export async function hashPasswordOf(
  core: Core,
  accountId: string,
  input: Record<string, unknown>,
  change?: { userId: string; mode: 'replace' | 'merge' },
): Promise<PasswordOptions> {
  if (!hasText(input.password)) return {};
  let username = input.username;
  if (username === undefined && change?.mode === 'merge') username = findUser(core, accountId, change.userId)?.doc.username;
  if (username === undefined || username === null || username === '') username = input.username = generatedUsername();
  if (typeof username !== 'string') return {}; // refused by the schema
  return { hashed: { accountId, username, hashes: await hashPassword(loginKey(core, true), accountId, username, input.password) } };
}

/**
 * Creates a user; the password is hashed and never stored in clear. A user may have no password
 * (nor username): it exists and cannot log in until one is set. A password without a username gets
 * a made-up one, as Kazoo does.
 */
export function createUser(core: Core, accountId: string, input: Record<string, unknown>, id?: string, opts: PasswordOptions = {}): StoredDoc {
  return transaction(core.db, () => {
    const { password, ...doc } = checkedUser(core, accountId, stripServerFields(input));
    let pvt: Record<string, unknown> = {};
    if (hasText(password)) {
      if (!hasText(doc.username)) doc.username = generatedUsername();
      pvt = withPassword(core, {}, accountId, String(doc.username), password, opts);
    }
    return insertDoc(core, 'user', accountId, doc, pvt, id);
  });
}

/**
 * Replaces (POST) or merges (PATCH, deeply) a user; the whole document is validated. The
 * credentials follow Kazoo's rules: a password is hashed with the username (a made-up one when the
 * user has none); a new username needs the password too, since the hashes are of both; a user left
 * with neither loses its credentials.
 */
export function updateUser(
  core: Core,
  accountId: string,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
  opts: PasswordOptions = {},
): StoredDoc {
  return transaction(core.db, () => {
    const current = getUser(core, accountId, id);
    const incoming = stripServerFields(input);
    const merged = mode === 'merge' ? mergePatch(current.doc, incoming) : incoming;
    const { password, ...doc } = checkedUser(core, accountId, merged, id);
    const hadCredentials = [LOGIN_FIELD, ...OLD_PASSWORD_FIELDS].some((k) => current.pvt[k] !== undefined);
    const withoutCredentials = Object.fromEntries(Object.entries(current.pvt).filter(([k]) => k !== LOGIN_FIELD && !OLD_PASSWORD_FIELDS.includes(k)));
    let pvt = current.pvt;
    if (hasText(password)) {
      if (!hasText(doc.username)) doc.username = generatedUsername();
      pvt = { ...withPassword(core, withoutCredentials, accountId, String(doc.username), password, opts), pvt_password_changed: Date.now() };
    } else if (doc.username !== current.doc.username && hadCredentials) {
      if (hasText(doc.username)) {
        throw errors.invalidField('password', 'required', 'The password must be provided when creating / updating the user name', {
          cause: doc.username,
        });
      }
      pvt = { ...withoutCredentials, pvt_password_changed: Date.now() };
    }
    const updated = updateDoc(core, current, doc, pvt, ifMatch);
    const revoke = tokensRevoked(current, updated.doc, updated.pvt);
    if (revoke === 'all') revokeUserTokens(core, id);
    else if (revoke === 'credentials') revokeUserTokens(core, id, opts.ownTokenKey);
    return updated;
  });
}

/** Deletes a user and the tokens issued to them. */
export function deleteUser(core: Core, accountId: string, id: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    const current = getUser(core, accountId, id);
    deleteDoc(core, current, ifMatch);
    revokeUserTokens(core, id);
    return current;
  });
}

/** Who acts on users, as the privilege check needs it. */
export interface Actor {
  accountId: string;
  ownerId?: string;
  isSuperduper: boolean;
}

/** An admin of its account: a super-duper admin, an API-key token (no user), or an admin user. */
export function isAccountAdmin(core: Core, actor: Actor): boolean {
  if (actor.isSuperduper || !actor.ownerId) return true;
  return findUser(core, actor.accountId, actor.ownerId)?.doc.priv_level === 'admin';
}

/** What a user-document write does, as the privilege check sees it. */
export type UserWrite = { op: 'create' } | { op: 'delete'; userId: string } | { op: 'update'; userId: string; input: Record<string, unknown> };

/**
 * Who may write users (Kazoo's cb_simple_authz model, stricter where it is loose): an admin of the
 * account — an admin user of it or of an ancestor, an API-key token, a super-duper admin — may do
 * anything; any other user may change only their own document, and never its `priv_level` or
 * `enabled` (else a plain user could make themselves admin, or take over an admin by changing
 * the admin's password). A field sent back unchanged (a whole document posted back) is no change.
 */
export function checkUserWrite(core: Core, actor: Actor, accountId: string, write: UserWrite): void {
  if (isAccountAdmin(core, actor)) return;
  if (write.op === 'create') throw errors.forbidden('creating users needs an admin of the account');
  if (write.op === 'delete') throw errors.forbidden('deleting users needs an admin of the account');
  if (actor.accountId !== accountId || actor.ownerId !== write.userId) {
    throw errors.forbidden("changing another user's document needs an admin of the account");
  }
  const current = findUser(core, accountId, write.userId);
  for (const field of ['priv_level', 'enabled'] as const) {
    const sent = write.input[field];
    if (sent === undefined || sent === null) continue;
    const now = current?.doc[field] ?? (field === 'enabled' ? true : 'user');
    if (String(sent) !== String(now)) throw errors.forbidden(`changing ${field} needs an admin of the account`);
  }
}

/**
 * Which of a user's tokens die with this change: they stood for an enabled user and a privilege
 * level (`all` go when either is taken away), and for a password (`credentials`: the sessions
 * opened with the old one go, but the user's own request that changed it keeps its token).
 */
function tokensRevoked(before: StoredDoc, afterDoc: Record<string, unknown>, afterPvt: Record<string, unknown>): 'all' | 'credentials' | 'none' {
  if ((afterDoc.enabled === false && before.doc.enabled !== false) || (before.doc.priv_level === 'admin' && afterDoc.priv_level !== 'admin')) return 'all';
  return before.pvt.pvt_password_changed !== afterPvt.pvt_password_changed ? 'credentials' : 'none';
}

/** Revokes every token issued to a user, but the one stored under `keepKey` when given. */
export function revokeUserTokens(core: Core, userId: string, keepKey?: string): void {
  stmt(core.db, 'DELETE FROM tokens WHERE owner_id = ? AND id IS NOT ?').run(userId, keepKey ?? null);
  rowCache(core.db, 'tokens').clear();
}

/** A user a login's credentials match; one stored before login hashes carries what to store now. */
export interface LoginMatch {
  user: StoredDoc;
  upgrade?: LoginHashes;
}

const LOOKUP_SQL = {
  md5: "SELECT id FROM docs WHERE kind = 'user' AND json_extract(pvt, '$.pvt_login.md5') = ? AND account_id = ?",
  sha: "SELECT id FROM docs WHERE kind = 'user' AND json_extract(pvt, '$.pvt_login.sha1') = ? AND account_id = ?",
};

/**
 * Users whose password is stored as earlier versions did (salted per user, or Kazoo's plain md5 and
 * sha1), through the index of such users (migration 2900, named: the planner would otherwise walk
 * every user of the account): none, once each has logged in.
 */
const LEGACY_SQL = `SELECT id FROM docs INDEXED BY docs_user_legacy_login WHERE kind = 'user' AND account_id = ? AND json_extract(pvt, '$.pvt_login') IS NULL
  AND (json_extract(pvt, '$.pvt_credentials') IS NOT NULL OR json_extract(pvt, '$.pvt_md5_auth') IS NOT NULL)
  AND (json_extract(pvt, ?) = ? OR json_extract(pvt, '$.pvt_md5_auth') IS NOT NULL)`;

/**
 * Enabled users of an account whose password `form` is (the md5 or sha1 hex a client sends). One
 * scrypt of the form, looked up in an index, whatever the account's size; users stored by earlier
 * versions, until they have logged in once, cost one more each (a salted one, one in sixteen of
 * them; a plain one, none) and carry the login hashes to store for them.
 */
export async function usersByCredentials(core: Core, accountId: string, form: string, method: 'md5' | 'sha'): Promise<LoginMatch[]> {
  const again = recentLogin(core, accountId, form, method);
  if (again) return [{ user: again }];
  const found: LoginMatch[] = [];
  const key = loginKey(core);
  const hash = key ? await loginHash(key, accountId, form) : undefined;
  if (hash) {
    for (const { id } of stmt(core.db, LOOKUP_SQL[method]).all(hash, accountId) as { id: string }[]) {
      const u = findUser(core, accountId, id);
      if (u && u.doc.enabled !== false && (u.pvt[LOGIN_FIELD] as LoginHashes).key === key!.id) found.push({ user: u });
    }
    if (found.length === 1) rememberLogin(core, accountId, form, method, found[0].user.id, hash);
  }
  const hintPath = method === 'sha' ? '$.pvt_credentials.sha1_hint' : '$.pvt_credentials.md5_hint';
  for (const { id } of stmt(core.db, LEGACY_SQL).all(accountId, hintPath, saltedHint(form)) as { id: string }[]) {
    const u = findUser(core, accountId, id);
    if (!u || u.doc.enabled === false) continue;
    const salted = u.pvt[SALTED_FIELD] as SaltedCredentials | undefined;
    const plain = u.pvt[method === 'sha' ? 'pvt_sha1_auth' : 'pvt_md5_auth'];
    const matches = salted ? await verifySalted(salted, form, method) : typeof plain === 'string' && sameSecret(plain, form.toLowerCase());
    if (matches) found.push({ user: u, upgrade: await upgradeOf(core, accountId, u, form, method, hash) });
  }
  return found;
}

/**
 * Logins that succeeded lately, so that the same credentials coming back (a client that logs in
 * for each run, a UI reloaded) cost no hash: kept in this process's memory only, by an HMAC of
 * the account, method and form under a key that never leaves it, with the user and the login hash
 * found. A remembered login stands only while the user is enabled and still has that very hash
 * (a new password, a rename or another login key end it); failed logins are never remembered.
 */
const RECENT_LOGINS_MAX = 10_000;
const recentLogins = new WeakMap<Core, { secret: Buffer; byCredentials: Map<string, { userId: string; hash: string }> }>();

function recentKey(core: Core, accountId: string, form: string, method: 'md5' | 'sha'): { map: Map<string, { userId: string; hash: string }>; key: string } {
  let r = recentLogins.get(core);
  if (!r) recentLogins.set(core, (r = { secret: randomBytes(32), byCredentials: new Map() }));
  return { map: r.byCredentials, key: createHmac('sha256', r.secret).update(`${accountId} ${method} ${form.toLowerCase()}`).digest('base64') };
}

function recentLogin(core: Core, accountId: string, form: string, method: 'md5' | 'sha'): StoredDoc | undefined {
  const { map, key } = recentKey(core, accountId, form, method);
  const seen = map.get(key);
  if (!seen) return undefined;
  const u = findUser(core, accountId, seen.userId);
  const stored = u?.pvt[LOGIN_FIELD] as LoginHashes | undefined;
  if (u && stored && u.doc.enabled !== false && stored.key === loginKey(core)?.id && (method === 'sha' ? stored.sha1 : stored.md5) === seen.hash) return u;
  map.delete(key);
  return undefined;
}

function rememberLogin(core: Core, accountId: string, form: string, method: 'md5' | 'sha', userId: string, hash: string): void {
  const { map, key } = recentKey(core, accountId, form, method);
  if (map.size >= RECENT_LOGINS_MAX) map.clear();
  map.set(key, { userId, hash });
}

/**
 * The login hashes of a user stored by an earlier version, now that a login gave a form. A plain
 * user's other form is in its document; a salted user's is not, so one upgraded at an md5 login
 * logs in with md5 (what every Kazoo client sends) and needs a new password for sha; a salted user
 * logging in with sha keeps its salted record.
 */
async function upgradeOf(core: Core, accountId: string, u: StoredDoc, form: string, method: 'md5' | 'sha', hash?: string): Promise<LoginHashes | undefined> {
  const key = loginKey(core, true);
  const mine = hash ?? (await loginHash(key, accountId, form));
  if (!u.pvt[SALTED_FIELD]) {
    const other = u.pvt[method === 'sha' ? 'pvt_md5_auth' : 'pvt_sha1_auth'];
    const otherHash = typeof other === 'string' ? await loginHash(key, accountId, other) : '';
    return method === 'sha' ? { key: key.id, md5: otherHash, sha1: mine } : { key: key.id, md5: mine, sha1: otherHash };
  }
  return method === 'md5' ? { key: key.id, md5: mine, sha1: '' } : undefined;
}

/** Stores a login match's upgrade (in the login's transaction): the user's old password fields go. */
export function storeLoginUpgrade(core: Core, match: LoginMatch): void {
  if (!match.upgrade) return;
  const kept = Object.fromEntries(Object.entries(match.user.pvt).filter(([k]) => !OLD_PASSWORD_FIELDS.includes(k)));
  stmt(core.db, 'UPDATE docs SET pvt = ? WHERE id = ?').run(JSON.stringify({ ...kept, [LOGIN_FIELD]: match.upgrade }), match.user.id);
}

/** Whether `password` is a user's stored one (`tel apply`: is a password in a lab file a change?). */
export async function isUserPassword(core: Core, accountId: string, user: { doc: Record<string, unknown>; pvt?: Record<string, unknown> }, password: string): Promise<boolean> {
  const form = loginForms(String(user.doc.username), password).md5;
  const stored = user.pvt?.[LOGIN_FIELD] as LoginHashes | undefined;
  const key = loginKey(core);
  if (stored && key && stored.key === key.id) return sameSecret(stored.md5, await loginHash(key, accountId, form));
  const salted = user.pvt?.[SALTED_FIELD] as SaltedCredentials | undefined;
  return salted ? verifySalted(salted, form, 'md5') : false;
}

/**
 * How many users' login hashes were made with a login key other than the database's (its key
 * file missing, or another one): they cannot log in until the right key file is back or their
 * password is set again. `tel serve` and `tel restore` say so.
 */
export function usersWithoutTheirKey(core: Core): number {
  const key = loginKey(core);
  const row = stmt(
    core.db,
    "SELECT count(*) AS n FROM docs WHERE kind = 'user' AND json_extract(pvt, '$.pvt_login.key') IS NOT NULL AND json_extract(pvt, '$.pvt_login.key') <> ?",
  ).get(key?.id ?? '') as { n: number };
  return row.n;
}
