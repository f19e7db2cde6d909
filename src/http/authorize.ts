import type { Core } from '../core-type.js';
import type { AuthInfo } from '../modules/auth/service.js';
import type { RequestContext } from './context.js';
import { errors } from '../errors.js';
import { findAccount } from '../modules/accounts/service.js';
import { isAccountAdmin } from '../modules/users/service.js';

/** A check run after the token is known and before any handler; throws a 403 to refuse. */
export type Authorizer = (ctx: RequestContext, auth: AuthInfo, core: Core) => void;

/**
 * An account may act on itself and its descendants only; a super-duper admin on every account.
 * A missing account is refused like a foreign one, so a token cannot probe for ids.
 */
export function checkAccountAccess(ctx: RequestContext, auth: AuthInfo, core: Core): void {
  const target = ctx.path.accountId;
  if (!target || auth.isSuperduper || target === auth.accountId) return;
  const account = findAccount(core, target);
  if (!account || !account.tree.includes(auth.accountId)) {
    throw errors.forbidden('the token may act on its own account and its descendants only');
  }
}

/** The methods that change something. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);

function mayReach(core: Core, auth: AuthInfo, accountId: string): boolean {
  return auth.isSuperduper || accountId === auth.accountId || (findAccount(core, accountId)?.tree.includes(auth.accountId) ?? false);
}

/**
 * A check refusing (403 `why`) the requests `changes` picks to anyone but an admin of the account
 * the path names (Kazoo lets any user of the account). A foreign account is left to the account
 * check, which refuses it without saying more.
 */
export function adminOnly(changes: (ctx: RequestContext, core: Core) => boolean, why: string): Authorizer {
  return (ctx, auth, core) => {
    if (!changes(ctx, core)) return;
    if (!mayReach(core, auth, ctx.path.accountId ?? auth.accountId)) return;
    if (!isAccountAdmin(core, auth)) throw errors.forbidden(why);
  };
}
