import { createHash, randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { stmt, transaction } from '../../store/db.js';
import { findAccount, findAccountsByName, findAccountsByRealm, type Account } from '../accounts/service.js';
import { findUser, getUser, updateUser } from '../users/service.js';
import { publishNotification } from '../webhooks/notifications.js';
import { issueToken, METHOD_USER_AUTH, tokenRecord, type LoginSource } from './service.js';
import { loginThrottle } from './throttle.js';

/** How long a reset link works (Kazoo's have no end; tel's end after a day, and work once). */
export const RESET_LIFETIME_MS = 24 * 3600 * 1000;

/** `PUT /v2/user_auth/recovery`: who asks for a reset link (Kazoo's `user_auth_recovery` schema). */
export const recoveryValidator = compileValidator({
  type: 'object',
  required: ['ui_url', 'username'],
  properties: {
    account_name: { type: 'string', minLength: 1, maxLength: 64, description: "the user's account name" },
    account_realm: { type: 'string', minLength: 1, maxLength: 64, description: "the user's account realm" },
    realm: { type: 'string', minLength: 1, maxLength: 64, description: 'the same as account_realm' },
    ui_url: { type: 'string', minLength: 14, maxLength: 2000, description: "the UI's root URL, the link's start" },
    username: { type: 'string', minLength: 1, maxLength: 254, description: "the user's username" },
  },
});

/** `POST /v2/user_auth/recovery`: the id of a reset link (Kazoo's `user_auth_recovery_reset` schema). */
export const resetValidator = compileValidator({
  type: 'object',
  required: ['reset_id'],
  properties: { reset_id: { type: 'string', pattern: '^[a-fA-F0-9]{40,250}$', description: 'the id the reset link carries' } },
});

/** Reset ids are kept as their SHA-256, as tokens are: the database alone opens no account. */
// Stryker disable next-line MethodExpression: the id stored and the id looked up are brought to one case; which case is not seen
const resetKey = (resetId: string) => createHash('sha256').update(resetId.toLowerCase()).digest('hex');

/** The link a reset id makes of the UI's URL (Kazoo's `reset_link`). */
export function resetLink(uiUrl: string, resetId: string): string {
  return `${uiUrl}${uiUrl.includes('?') ? '&' : '?'}recovery=${resetId}`;
}

/**
 * Asks for a reset link for a user found by account (name or realm) and username. tel sends no
 * e-mail: the link goes, as Kazoo's `password_recovery` notification, to the account's
 * `notifications` hooks. A username not found (or disabled) is Kazoo's 400; every request counts
 * against the login throttle of the address and the accounts named.
 */
export async function requestRecovery(core: Core, input: unknown, from: LoginSource): Promise<string> {
  const data = recoveryValidator(input ?? {});
  const realm = (data.account_realm ?? data.realm) as string | undefined;
  const accounts: Account[] = realm ? findAccountsByRealm(core, realm) : data.account_name ? findAccountsByName(core, String(data.account_name)) : [];
  const turn = await loginThrottle(core).turn({ address: from.address, accounts: accounts.map((a) => a.id) });
  const username = String(data.username).toLowerCase();
  const account = accounts.find((a) => a.doc.enabled !== false);
  const row = account
    ? (stmt(core.db, "SELECT id FROM docs WHERE account_id = ? AND kind = 'user' AND lower(json_extract(doc, '$.username')) = ? LIMIT 1").get(account.id, username) as
        | { id: string }
        | undefined)
    : undefined;
  if (!account || !row) {
    turn.failed();
    throw errors.invalidField('username', 'not_found', 'The provided user name was not found', { cause: data.username });
  }
  const user = getUser(core, account.id, row.id);
  if (user.doc.enabled === false) {
    turn.failed();
    throw errors.invalidField('username', 'forbidden', 'The provided user name is disabled', { cause: data.username });
  }
  turn.succeeded(account.id);
  // Kazoo's reset ids are 137 hex digits, starting with the account's id
  const resetId = account.id + randomBytes(53).toString('hex').slice(0, 105);
  const email = (user.doc.email ?? user.doc.username) as string;
  transaction(core.db, () => {
    stmt(core.db, 'DELETE FROM password_resets WHERE created < ?').run(Date.now() - RESET_LIFETIME_MS);
    stmt(core.db, 'INSERT INTO password_resets (id, account_id, user_id, created) VALUES (?, ?, ?, ?)').run(resetKey(resetId), account.id, user.id, Date.now());
    publishNotification(core, account.id, 'password_recovery', {
      email,
      first_name: user.doc.first_name,
      last_name: user.doc.last_name,
      timezone: user.doc.timezone,
      user_id: user.id,
      password_reset_link: resetLink(String(data.ui_url), resetId),
    });
  });
  return `Request for password reset handled, the link sent to the account's notifications hooks for: ${email}`;
}

/**
 * Follows a reset link: the user it was made for must set a new password
 * (`require_password_update`) and is logged in (Kazoo's answer: a token of `cb_user_auth`). A
 * reset id works once, for a day; an unknown one is Kazoo's 400 and counts against the throttle.
 */
export async function resetPassword(core: Core, input: unknown, from: LoginSource): Promise<{ token: string; data: Record<string, unknown> }> {
  const data = resetValidator(input ?? {});
  const resetId = String(data.reset_id);
  const turn = await loginThrottle(core).turn({ address: from.address, accounts: [] });
  return transaction(core.db, () => {
    const row = stmt(core.db, 'DELETE FROM password_resets WHERE id = ? AND created >= ? RETURNING account_id, user_id').get(resetKey(resetId), Date.now() - RESET_LIFETIME_MS) as
      | { account_id: string; user_id: string }
      | undefined;
    const account = row && findAccount(core, row.account_id);
    if (!row || !account || account.doc.enabled === false || !findUser(core, row.account_id, row.user_id)) {
      turn.failed();
      throw errors.invalidField('user', 'not_found', 'The provided reset_id did not resolve to any user', { cause: resetId });
    }
    turn.succeeded(row.account_id);
    updateUser(core, row.account_id, row.user_id, { require_password_update: true }, 'merge');
    const token = issueToken(core, { account, ownerId: row.user_id, method: METHOD_USER_AUTH });
    return { token, data: tokenRecord(core, { token, account, ownerId: row.user_id, method: METHOD_USER_AUTH }, from.apiUrl) };
  });
}
