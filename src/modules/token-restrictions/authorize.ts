import type { Core } from '../../core-type.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../errors.js';
import type { AuthInfo } from '../auth/service.js';
import { adminOnly, WRITE_METHODS } from '../../http/authorize.js';
import { accountTemplate, checkToken, denialReason } from './service.js';

/** Refuses, with the seed's 403 and the failed step, a request the token's restrictions deny. */
export function enforceTokenRestrictions(ctx: RequestContext, auth: AuthInfo, core: Core): void {
  if (auth.isSuperduper || (auth.restrictions == null && auth.loginRestrictions == null)) return;
  const verdict = checkToken(
    core,
    { token: auth.token, accountId: auth.accountId, superduper: false, rules: auth.restrictions, login: auth.loginRestrictions },
    ctx.method,
    ctx.path,
  );
  if (!verdict.allowed) throw errors.restricted({ step: verdict.failedStep, reason: denialReason(verdict) });
}

/** True when the request would create, change or remove an account's restriction template. */
export function changesTemplate(ctx: RequestContext, core: Core): boolean {
  const { path, method } = ctx;
  if (!WRITE_METHODS.has(method)) return false;
  if (path.endpoint === 'token_restrictions') return true;
  if (path.endpoint !== 'accounts' || path.resources.length !== 1 || path.args.length > 1) return false;
  const data = ctx.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const sent = (data as Record<string, unknown>).restrictions;
  if (method === 'PUT') return sent !== undefined;
  const id = path.args[0];
  if (!id || method === 'DELETE') return false;
  if (method === 'PATCH' && sent === undefined) return false;
  // A POST replaces the document: leaving `restrictions` out removes the template.
  return JSON.stringify(sent) !== JSON.stringify(accountTemplate(core, id));
}

/** Only an admin of the account may change its template (Kazoo lets any user loosen their own). */
export const requireAdminForTemplateChanges = adminOnly(changesTemplate, 'changing token restrictions needs an admin of the account');
