import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { ownApiUrl } from '../../http/request.js';
import { stmt, transaction } from '../../store/db.js';
import { findAccount } from '../accounts/service.js';
import { issueToken, tokenRecord, type LoginSource } from '../auth/service.js';
import { findUser } from '../users/service.js';
import type { TelModule } from '../types.js';

/** The login method of a token an address got (Kazoo's module name, as restriction templates key it). */
export const METHOD_IP_AUTH = 'cb_ip_auth';

/** A client's address as accounts list it: an IPv4 address reached over IPv6 written as IPv4. */
function clientIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * `PUT /v2/ip_auth`: a token for the account whose document lists the client's address in `ips`
 * (`[{ip, owner_id?}]`), for that entry's user when it names one. Kazoo's rule: exactly one
 * account may list it; an address listed by none, or by several, is refused as bad credentials.
 * A disabled account, or an owner that is not a user of the account, is refused too.
 */
export function ipAuth(core: Core, from: LoginSource): { token: string; data: Record<string, unknown> } {
  const rows = stmt(core.db, 'SELECT account_id, owner_id FROM account_ips WHERE ip = ? LIMIT 2').all(clientIp(from.address)) as {
    account_id: string;
    owner_id: string | null;
  }[];
  if (rows.length !== 1) throw errors.invalidCredentials();
  const account = findAccount(core, rows[0].account_id);
  const ownerId = rows[0].owner_id ?? undefined;
  if (!account || account.doc.enabled === false) throw errors.invalidCredentials();
  if (ownerId !== undefined && !findUser(core, account.id, ownerId)) throw errors.invalidCredentials();
  return transaction(core.db, () => {
    const token = issueToken(core, { account, ownerId, method: METHOD_IP_AUTH });
    return { token, data: tokenRecord(core, { token, account, ownerId, method: METHOD_IP_AUTH }, from.apiUrl) };
  });
}

/** `PUT /v2/ip_auth`: Kazoo's `cb_ip_auth`, a login by the client's address. */
export const ipAuthModule: TelModule = {
  name: 'ip_auth',
  endpoints: ['ip_auth'],
  routes: [
    {
      method: 'PUT',
      path: 'ip_auth',
      auth: 'none',
      cors: 'allowed-origins',
      errors: [401],
      handler: (ctx, core) => {
        const { token, data } = ipAuth(core, { address: ctx.remoteAddress ?? '', apiUrl: ownApiUrl(ctx) });
        ctx.authToken = token;
        return { status: 201, data };
      },
    },
  ],
};
