import type { Core } from '../../core.js';
import { compileValidator, mergeErrors, throwIfErrors } from '../../schema/validate.js';
import { deleteDoc, findDoc, getDoc, insertDoc, listDocs, publicDoc, stripServerFields, updateDoc, type StoredDoc } from '../../store/documents.js';
import { md5Hex, sha1Hex } from '../../util/ids.js';
import { errors, type ValidationErrors } from '../../http/errors.js';
import { stmt, transaction } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';

/** The user document clients may set; `password` is write-only. */
export const userSchema = {
  type: 'object',
  required: ['username'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 256 },
    password: { type: 'string', minLength: 1 },
    priv_level: { type: 'string', enum: ['admin', 'user'], default: 'user' },
    first_name: { type: 'string', maxLength: 128 },
    last_name: { type: 'string', maxLength: 128 },
    email: { type: 'string' },
    enabled: { type: 'boolean', default: true },
    language: { type: 'string' },
    ui_metadata: { type: 'object' },
  },
} as const;

const validateUser = compileValidator(userSchema);

/** The credential hashes Kazoo compares logins with: md5 and sha1 of `username:password`. */
export function credentialHashes(username: string, password: string): { pvt_md5_auth: string; pvt_sha1_auth: string } {
  const creds = `${username.toLowerCase()}:${password}`;
  return { pvt_md5_auth: md5Hex(creds), pvt_sha1_auth: sha1Hex(creds) };
}

function usernameTaken(core: Core, accountId: string, username: string, selfId?: string): ValidationErrors | undefined {
  const clash = listDocs(core, 'user', accountId).find(
    (u) => u.id !== selfId && String(u.doc.username).toLowerCase() === username.toLowerCase(),
  );
  return clash ? { username: { unique: { message: 'Username is already in use', value: username } } } : undefined;
}

/** The public JSON of a user (never the password or its hashes). */
export function userJson(u: StoredDoc): Record<string, unknown> {
  return publicDoc(u);
}

/** Every user of an account. */
export function listUsers(core: Core, accountId: string): StoredDoc[] {
  return listDocs(core, 'user', accountId);
}

/** One user or a 404. */
export function getUser(core: Core, accountId: string, id: string): StoredDoc {
  return getDoc(core, 'user', accountId, id);
}

/** One user or undefined. */
export function findUser(core: Core, accountId: string, id: string): StoredDoc | undefined {
  return findDoc(core, 'user', accountId, id);
}

/** Creates a user; the password is hashed and never stored in clear. */
export function createUser(core: Core, accountId: string, input: Record<string, unknown>, id?: string): StoredDoc {
  const doc = stripServerFields(input);
  const v = validateUser.check(doc);
  throwIfErrors(mergeErrors(v, v ? undefined : usernameTaken(core, accountId, String(doc.username))));
  if (typeof doc.password !== 'string') {
    throw errors.invalidField('password', 'required', 'Field is required but missing');
  }
  const { password, ...rest } = doc;
  return transaction(core.db, () => insertDoc(core, 'user', accountId, rest, credentialHashes(String(rest.username), password), id));
}

/** Replaces (POST) or merges (PATCH) a user. A new username needs the password too. */
export function updateUser(
  core: Core,
  accountId: string,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
): StoredDoc {
  return transaction(core.db, () => {
    const current = getUser(core, accountId, id);
    const incoming = stripServerFields(input);
    const doc = mode === 'merge' ? { ...current.doc, ...incoming } : incoming;
    if (doc.username === undefined) doc.username = current.doc.username;
    const v = validateUser.check(doc);
    throwIfErrors(mergeErrors(v, v ? undefined : usernameTaken(core, accountId, String(doc.username), id)));
    const { password, ...rest } = doc;
    let pvt = current.pvt;
    if (typeof password === 'string') {
      pvt = { ...pvt, ...credentialHashes(String(rest.username), password) };
    } else if (String(rest.username).toLowerCase() !== String(current.doc.username).toLowerCase()) {
      throw errors.invalidField('password', 'required', 'A new username needs the password too');
    }
    return updateDoc(core, current, rest, pvt, ifMatch);
  });
}

/** Deletes a user and the tokens issued to them. */
export function deleteUser(core: Core, accountId: string, id: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    const current = getUser(core, accountId, id);
    deleteDoc(core, current, ifMatch);
    stmt(core.db, 'DELETE FROM tokens WHERE owner_id = ?').run(id);
    rowCache(core.db, 'tokens').clear();
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

/**
 * Only an admin may make someone an admin: otherwise a plain user could raise their own
 * `priv_level` and, at the next login, escape the rules of their level and edit the templates.
 * Keeping an admin an admin (a whole document posted back) is no change.
 */
export function checkPrivilegeGrant(core: Core, actor: Actor, accountId: string, userId: string | undefined, input: Record<string, unknown>): void {
  if (input.priv_level !== 'admin' || isAccountAdmin(core, actor)) return;
  const current = userId ? findUser(core, accountId, userId) : undefined;
  if (current?.doc.priv_level === 'admin') return;
  throw errors.forbidden('only an admin may give a user the admin privilege level');
}

/** Enabled users of an account whose stored hash equals `hash` for `method`. */
export function usersByCredentials(core: Core, accountId: string, hash: string, method: 'md5' | 'sha'): StoredDoc[] {
  const key = method === 'sha' ? 'pvt_sha1_auth' : 'pvt_md5_auth';
  return listUsers(core, accountId).filter((u) => u.pvt[key] === hash.toLowerCase() && u.doc.enabled !== false);
}
