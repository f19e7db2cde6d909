import { randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { transaction } from '../../store/db.js';
import { createUser } from '../users/service.js';
import { createAccount, hasAccounts } from './service.js';

export interface InitOptions {
  account: string;
  username: string;
  password: string;
  realm?: string;
}

/** What `tel init` prints: the master account, its admin user and its API key. */
export interface InitResult {
  account_id: string;
  user_id: string;
  api_key: string;
  realm: string;
}

/** True once a database holds its master account. */
export function isInitialised(core: Core): boolean {
  return hasAccounts(core);
}

/** Creates the master account (super-duper admin) and its admin user; refuses a used database. */
export function initDatabase(core: Core, opts: InitOptions): InitResult {
  return transaction(core.db, () => {
    if (isInitialised(core)) throw new Error('this database is already initialised');
    const account = createAccount(core, { name: opts.account, ...(opts.realm ? { realm: opts.realm } : {}) }, { superduper: true });
    const user = createUser(core, account.id, {
      username: opts.username,
      password: opts.password,
      priv_level: 'admin',
      first_name: 'Admin',
      last_name: opts.account,
    });
    return { account_id: account.id, user_id: user.id, api_key: account.apiKey, realm: account.realm };
  });
}

/** A random password for a generated admin. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
