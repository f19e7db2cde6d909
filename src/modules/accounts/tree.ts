import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { clearRowCaches } from '../../store/cache.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { publishObject } from '../documents/store.js';
import type { Actor } from '../users/service.js';
import type { ConfigCategory } from '../config/categories.js';
import { getAccount, masterAccount, type Account } from './service.js';
import { childrenPage, hasResellerBelow, rootPage, type ChildRow } from './tree-index.js';

/** The configuration category of the account operations' settings (Kazoo's). */
export const ACCOUNTS_CONFIG = 'crossbar.accounts';

/** `crossbar.accounts`: who may list siblings and move accounts. */
export const ACCOUNTS_CONFIG_CATEGORY: ConfigCategory = {
  name: ACCOUNTS_CONFIG,
  description: 'Account operations: who may list an account\'s siblings and who may move an account under another parent.',
  keys: {
    allow_sibling_listing: {
      type: 'boolean',
      default: true,
      description: "When false, only a super-duper admin may list an account's siblings (`GET /v2/accounts/{id}/siblings`).",
    },
    allow_move: {
      type: 'string',
      enum: ['tree', 'superduper_admin'],
      default: 'superduper_admin',
      description:
        '`superduper_admin` (Kazoo\'s default): only a super-duper admin moves accounts; `tree`: also an admin of both the moved account (or an ancestor of it) and its new parent (or an ancestor of it).',
    },
  },
};

/** An ancestor as the `parents` and `tree` listings show it. */
export interface AncestorRow {
  id: string;
  name: string;
  /** how far above the listed account it is (1: the parent) */
  depth: number;
}

/**
 * A page of the ancestors of an account the caller may see, root first, keyed by `[depth]`: from
 * the caller's own account (included when it is an ancestor) down to the parent (the other way
 * round when `nearestFirst`); every ancestor
 * for a super-duper admin or an operator (no caller). Kazoo's `parents` and `tree` answer this
 * list (its `parents` also shows ancestors above the caller, which tel does not). Read from the
 * tree's index of the account's ancestors.
 */
export function ancestorsPage(
  core: Core,
  actor: Actor | undefined,
  accountId: string,
  q: PageQuery<CompoundKey>,
  nearestFirst = false,
): Page<AncestorRow, CompoundKey> {
  const account = getAccount(core, accountId);
  const where = ['t.account_id = ?'];
  const args: (string | number)[] = [account.id];
  if (actor && !actor.isSuperduper) {
    const at = account.tree.indexOf(actor.accountId);
    // the caller's account is `tree.length - at` above this one; none when it is not above it
    where.push('t.depth <= ?');
    args.push(at < 0 ? 0 : account.tree.length - at);
  }
  return readKeysetPage<AncestorRow>(
    core.db,
    {
      select: 'SELECT a.id, a.name, t.depth FROM account_tree t JOIN accounts a ON a.id = t.ancestor_id',
      where,
      args,
      order: ['t.depth'],
      descending: !nearestFirst,
      keyOf: (r) => [r.depth],
    },
    q,
  );
}

/**
 * `siblings`: a page of the accounts under the same parent, the account itself included, by
 * name (a root account's siblings are itself). Asking for the caller's own account's siblings
 * shows accounts above it, so only a super-duper admin may (and anyone may ask of an account
 * below them, unless `allow_sibling_listing` is false), as Kazoo.
 */
export function siblingsPage(core: Core, actor: Actor | undefined, accountId: string, q: PageQuery<CompoundKey>, descending = false): Page<ChildRow, CompoundKey> {
  const account = getAccount(core, accountId);
  if (actor && !actor.isSuperduper) {
    if (accountId === actor.accountId) throw errors.forbidden("listing the siblings of the token's own account needs a super-duper admin");
    if (core.config.value<unknown>(ACCOUNTS_CONFIG, 'allow_sibling_listing', true) === false) {
      throw errors.forbidden('listing siblings is turned off (crossbar.accounts allow_sibling_listing)');
    }
  }
  return account.parentId ? childrenPage(core, account.parentId, q, descending) : rootPage(core, account.id, q);
}

/**
 * Promotes an account to reseller (`PUT …/reseller`) or demotes it (`DELETE`): the accounts
 * below it then have it, or the next reseller above, as their `reseller_id`. The master account
 * is refused, and so is an account with a reseller below it (Kazoo's rules).
 */
export function setReseller(core: Core, accountId: string, reseller: boolean): Account {
  return transaction(core.db, () => {
    const account = getAccount(core, accountId);
    if (masterAccount(core)?.id === account.id) throw errors.forbidden('the master account is always a reseller');
    if (hasResellerBelow(core, account.id)) {
      throw errors.invalidField('account', 'has_reseller_descendants', 'an account with resellers below it cannot be promoted or demoted');
    }
    if (account.reseller === reseller) return account;
    stmt(core.db, 'UPDATE accounts SET reseller = ?, modified = ? WHERE id = ?').run(reseller ? 1 : 0, Date.now(), account.id);
    clearRowCaches(core.db);
    publishObject(core, 'account', account.id, account.id, 'doc_edited');
    return getAccount(core, account.id);
  });
}
