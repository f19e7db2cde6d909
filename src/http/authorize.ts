import type { Core } from '../core-type.js';
import type { AuthInfo } from '../modules/auth/service.js';
import type { RequestContext } from './context.js';
import { errors } from '../errors.js';
import { findAccount } from '../modules/accounts/service.js';

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
