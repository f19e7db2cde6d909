import { randomBytes } from 'node:crypto';
import { generatePassword } from '../modules/accounts/bootstrap.js';
import type { Core } from '../core-type.js';
import { hashPassword } from '../modules/users/credentials.js';
import { loginKey } from '../modules/users/login-key.js';
import { isUserPassword } from '../modules/users/service.js';
import { maskedUri } from '../modules/webhooks/service.js';
import { MASKED, type CollectionKind, type Stored, type WriteExtras } from './kinds.js';
import type { ItemNode } from './read.js';

/** Where planning records what it could not do and the secrets it made up. */
export interface SecretsReport {
  problem(path: string, message: string): void;
  readonly generated: { name: string; value: string }[];
}

const NOTHING_TO_KEEP = `masked (${MASKED}) and the database has none to keep: export with --with-secrets`;

/**
 * A document whose masked values (an export without `--with-secrets`) take the values the
 * database holds; a new webhook gets a new signing secret, a new gateway a generated password.
 * Undefined when a mask has nothing to stand for (a problem is reported).
 */
export function unmasked(
  kind: CollectionKind,
  doc: Record<string, unknown>,
  match: Stored | undefined,
  at: { where: string; name: string },
  report: SecretsReport,
): Record<string, unknown> | undefined {
  const out = { ...doc };
  let ok = true;
  const problem = (path: string, message: string) => {
    ok = false;
    report.problem(path, message);
  };
  if (out.secret === MASKED) out.secret = match?.doc.secret ?? (kind.key === 'webhooks' ? newSecret() : MASKED);
  if (typeof out.uri === 'string' && out.uri.includes(`${MASKED}@`)) {
    if (match && maskedUri(match.doc.uri) === out.uri) out.uri = match.doc.uri;
    else problem(`${at.where}.uri`, `the uri's credentials are ${NOTHING_TO_KEEP}`);
  }
  if (Array.isArray(out.gateways)) {
    const was = Array.isArray(match?.doc.gateways) ? (match!.doc.gateways as Record<string, unknown>[]) : [];
    out.gateways = out.gateways.map((gw: Record<string, unknown>, i: number) => {
      if (gw?.password !== MASKED) return gw;
      if (typeof was[i]?.password === 'string') return { ...gw, password: was[i].password };
      const password = generatePassword().slice(0, 16);
      report.generated.push({ name: `${at.name} gateways[${i}] password`, value: password });
      return { ...gw, password };
    });
  }
  for (const [k, v] of Object.entries(out)) if (v === MASKED) problem(`${at.where}.${k}`, NOTHING_TO_KEEP);
  return ok ? out : undefined;
}

/**
 * A user's password write, hashed here (off the event loop), outside the transaction: a new user's
 * (generated when the file gives none), or a changed one (checked against the stored hashes).
 * None when it is unchanged.
 */
export async function passwordOf(
  core: Core,
  accountId: string | undefined,
  kind: CollectionKind,
  item: ItemNode,
  match: Stored | undefined,
  name: string,
  report: SecretsReport,
): Promise<WriteExtras> {
  if (kind.key !== 'users' || !accountId) return {};
  let password = item.password;
  if (!password && match) return {};
  if (!password) {
    password = generatePassword();
    report.generated.push({ name: `${name} password`, value: password });
  } else if (match && (await isUserPassword(core, accountId, match, password))) {
    return {};
  }
  return { password, hashed: { accountId, username: item.key, hashes: await hashPassword(loginKey(core, true), accountId, item.key, password) } };
}

/** A Standard Webhooks signing secret for a new hook whose file gives it masked. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
