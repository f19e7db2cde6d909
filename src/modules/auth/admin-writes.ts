import type { Core } from '../../core-type.js';
import type { Authorizer } from '../../http/authorize.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../errors.js';
import { findAccount } from '../accounts/service.js';
import { isAccountAdmin } from '../users/service.js';
import type { AuthInfo } from './service.js';

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
