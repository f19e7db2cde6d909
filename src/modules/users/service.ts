import type { Core } from '../../core-type.js';
import { compileValidator, mergeErrors, throwIfErrors } from '../../schema/validate.js';
import { userSchema } from './schema.js';
import { randomBytes } from 'node:crypto';
import { deleteDoc, docsPage, findDoc, getDoc, insertDoc, listDocs, publicDoc, stripServerFields, updateDoc, type StoredDoc } from '../documents/store.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { mergePatch } from '../../util/json.js';
import { CREDENTIALS_FIELD, hashCredentials, hashCredentialsFromForm, mayMatch, sameSecret, verifyCredentials, type StoredCredentials } from './credentials.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';

const validateUser = compileValidator(userSchema);

/** The private fields that hold a password: its salted hashes (see credentials.ts). */
export function credentialHashes(username: string, password: string): Record<string, unknown> {
  return { [CREDENTIALS_FIELD]: hashCredentials(username, password) };
}

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
 * How a write may store the password: `credentials` hashed ahead of time from this very username
 * and password (`hashCredentials`), so that the ~50 ms of hashing happens outside a transaction.
 */
export interface PasswordOptions {
  credentials?: StoredCredentials;
}

function passwordFields(username: string, password: string, opts: PasswordOptions): Record<string, unknown> {
  return opts.credentials ? { [CREDENTIALS_FIELD]: opts.credentials } : credentialHashes(username, password);
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
      pvt = passwordFields(String(doc.username), password, opts);
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
    const hadCredentials = current.pvt[CREDENTIALS_FIELD] !== undefined || current.pvt.pvt_md5_auth !== undefined;
    const { pvt_md5_auth: _md5, pvt_sha1_auth: _sha1, [CREDENTIALS_FIELD]: _creds, ...withoutCredentials } = current.pvt;
    let pvt = current.pvt;
    if (hasText(password)) {
      if (!hasText(doc.username)) doc.username = generatedUsername();
      pvt = { ...withoutCredentials, ...passwordFields(String(doc.username), password, opts), pvt_password_changed: Date.now() };
    } else if (doc.username !== current.doc.username && hadCredentials) {
      if (hasText(doc.username)) {
        throw errors.invalidField('password', 'required', 'The password must be provided when creating / updating the user name', {
          cause: doc.username,
        });
      }
      pvt = { ...withoutCredentials, pvt_password_changed: Date.now() };
    }
    const updated = updateDoc(core, current, doc, pvt, ifMatch);
    if (invalidatesTokens(current, updated.doc, updated.pvt)) revokeUserTokens(core, id);
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
 * Whether a user's tokens must die with this change: they stood for a password, a privilege
 * level and an enabled user, and a token outliving any of them would keep what was taken away.
 */
function invalidatesTokens(before: StoredDoc, afterDoc: Record<string, unknown>, afterPvt: Record<string, unknown>): boolean {
  return (
    before.pvt.pvt_password_changed !== afterPvt.pvt_password_changed ||
    (afterDoc.enabled === false && before.doc.enabled !== false) ||
    (before.doc.priv_level === 'admin' && afterDoc.priv_level !== 'admin')
  );
}

/** Revokes every token issued to a user. */
export function revokeUserTokens(core: Core, userId: string): void {
  stmt(core.db, 'DELETE FROM tokens WHERE owner_id = ?').run(userId);
  rowCache(core.db, 'tokens').clear();
}

/**
 * Enabled users of an account whose password `form` is (the md5 or sha1 hex a client sends).
 * Users stored before credentials were salted (Kazoo's plain md5/sha1) are compared in constant
 * time and moved to salted hashes the first time they log in.
 */
export async function usersByCredentials(core: Core, accountId: string, form: string, method: 'md5' | 'sha'): Promise<StoredDoc[]> {
  const found: StoredDoc[] = [];
  for (const u of listUsers(core, accountId)) {
    if (u.doc.enabled === false) continue;
    const stored = u.pvt[CREDENTIALS_FIELD] as StoredCredentials | undefined;
    if (stored) {
      if (mayMatch(stored, form, method) && (await verifyCredentials(stored, form, method))) found.push(u);
      continue;
    }
    const legacy = u.pvt[method === 'sha' ? 'pvt_sha1_auth' : 'pvt_md5_auth'];
    if (typeof legacy === 'string' && sameSecret(legacy, form.toLowerCase())) found.push(u);
  }
  return found;
}

/** Replaces a legacy user's plain md5/sha1 with salted hashes, now that a login gave its password form. */
export function upgradeLegacyCredentials(core: Core, user: StoredDoc, form: string, method: 'md5' | 'sha'): void {
  if (user.pvt[CREDENTIALS_FIELD] || method !== 'md5') return;
  // Only the md5 form was sent: the sha1 form cannot be derived, so a legacy user keeps logging in
  // with md5 (what every Kazoo client sends) once upgraded; sha logins need a password change.
  const { pvt_md5_auth: _md5, pvt_sha1_auth: _sha1, ...kept } = user.pvt;
  const stored = hashCredentialsFromForm(form);
  stmt(core.db, 'UPDATE docs SET pvt = ? WHERE id = ?').run(JSON.stringify({ ...kept, [CREDENTIALS_FIELD]: stored }), user.id);
}
