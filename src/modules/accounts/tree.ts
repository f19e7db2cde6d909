import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { clearRowCaches } from '../../store/cache.js';
import { publishObject } from '../documents/store.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import type { ConfigCategory } from '../config/categories.js';
import {
  accountSummary,
  findAccount,
  getAccount,
  listChildren,
  listDescendants,
  masterAccount,
  type Account,
} from './service.js';

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
      default: 'tree',
      description:
        '`tree`: an admin of both the moved account (or an ancestor of it) and its new parent (or an ancestor of it) may move it; `superduper_admin` (Kazoo\'s default): only a super-duper admin.',
    },
  },
};

/** An account as the tree listings (`parents`, `tree`) show it. */
function idAndName(a: Account): Record<string, unknown> {
  return { id: a.id, name: a.name };
}

/**
 * The ancestors of an account the caller may see, root first: from the caller's own account
 * (included when it is an ancestor) down to the parent; every ancestor for a super-duper admin
 * or an operator (no caller). Kazoo's `parents` and `tree` answer this list (its `parents` also
 * shows ancestors above the caller, which tel does not).
 */
export function visibleAncestors(core: Core, actor: Actor | undefined, accountId: string): Record<string, unknown>[] {
  const account = getAccount(core, accountId);
  let tree = account.tree;
  if (actor && !actor.isSuperduper) {
    const at = tree.indexOf(actor.accountId);
    tree = at < 0 ? [] : tree.slice(at);
  }
  return tree.map((id) => idAndName(getAccount(core, id)));
}

/** A listing row of a child: the account's summary and how many accounts are below it. */
export function childSummary(core: Core, a: Account): Record<string, unknown> {
  return { ...accountSummary(a), descendants_count: listDescendants(core, a.id).length };
}

/**
 * `siblings`: the accounts under the same parent, the account itself included. Asking for the
 * caller's own account's siblings shows accounts above it, so only a super-duper admin may (and
 * anyone may ask of an account below them, unless `allow_sibling_listing` is false), as Kazoo.
 */
export function listSiblings(core: Core, actor: Actor | undefined, accountId: string): Record<string, unknown>[] {
  const account = getAccount(core, accountId);
  if (actor && !actor.isSuperduper) {
    if (accountId === actor.accountId) throw errors.forbidden("listing the siblings of the token's own account needs a super-duper admin");
    if (core.config.value<unknown>(ACCOUNTS_CONFIG, 'allow_sibling_listing', true) === false) {
      throw errors.forbidden('listing siblings is turned off (crossbar.accounts allow_sibling_listing)');
    }
  }
  const siblings = account.parentId ? listChildren(core, account.parentId) : [account];
  return siblings.map((a) => childSummary(core, a));
}

/**
 * Who may move an account: a super-duper admin, or (with `allow_move` `tree`, the default) an
 * admin whose account is the moved account's or an ancestor of it and the new parent's or an
 * ancestor of it — an admin of both ends. `superduper_admin` keeps it to super-duper admins, as
 * Kazoo's default. An unknown parent is refused like a foreign one, so ids cannot be probed.
 */
function checkMove(core: Core, actor: Actor, account: Account, to: Account | undefined): void {
  if (actor.isSuperduper) return;
  if (core.config.value<unknown>(ACCOUNTS_CONFIG, 'allow_move', 'tree') === 'superduper_admin') {
    throw errors.forbidden('moving accounts needs a super-duper admin (crossbar.accounts allow_move)');
  }
  const above = (a: Account) => a.id === actor.accountId || a.tree.includes(actor.accountId);
  if (!isAccountAdmin(core, actor) || !above(account) || !to || !above(to)) {
    throw errors.forbidden('moving an account needs an admin of it and of its new parent');
  }
}

/**
 * Moves an account, its sub-accounts with it, under a new parent (`POST …/move` with `to`). The
 * master account stays the root; an account cannot go under itself or its own sub-accounts.
 * Publishes `doc_edited` for every account whose tree changed. `actor` undefined: the operator
 * (the CLI).
 */
export function moveAccount(core: Core, actor: Actor | undefined, accountId: string, toId: unknown): Account {
  if (typeof toId !== 'string' || toId === '') throw errors.invalidField('to', 'required', "Field 'to' is required");
  return transaction(core.db, () => {
    const account = getAccount(core, accountId);
    const to = findAccount(core, toId);
    if (actor) checkMove(core, actor, account, to);
    if (!to) throw errors.badIdentifier(toId);
    if (masterAccount(core)?.id === account.id) throw errors.forbidden('the master account cannot be moved');
    if (to.id === account.id || to.tree.includes(account.id)) {
      throw errors.forbidden('an account cannot move under itself or one of its sub-accounts');
    }
    if (account.parentId === to.id) return account;
    const moved = reparentSubtree(core, account.id, to.id);
    for (const id of moved) publishObject(core, 'account', id, id, 'doc_edited');
    return getAccount(core, account.id);
  });
}

/**
 * The one store operation a move needs: puts an account under a new parent and rewrites the
 * ancestors of its whole subtree (each keeps the part of its tree below the moved account).
 * Answers the ids whose tree changed, the moved account first. Runs in the caller's transaction.
 */
export function reparentSubtree(core: Core, accountId: string, newParentId: string): string[] {
  const account = getAccount(core, accountId);
  const parent = getAccount(core, newParentId);
  const newTree = [...parent.tree, parent.id];
  const now = Date.now();
  const update = stmt(core.db, 'UPDATE accounts SET parent_id = ?, tree = ?, modified = ? WHERE id = ?');
  update.run(parent.id, JSON.stringify(newTree), now, account.id);
  const ids = [account.id];
  for (const d of listDescendants(core, account.id)) {
    const below = d.tree.slice(d.tree.indexOf(account.id));
    update.run(d.parentId, JSON.stringify([...newTree, ...below]), now, d.id);
    ids.push(d.id);
  }
  // every cached account, and what was worked out from the trees (hooks of ancestors), is stale
  clearRowCaches(core.db);
  return ids;
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
    if (listDescendants(core, account.id).some((d) => d.reseller)) {
      throw errors.invalidField('account', 'has_reseller_descendants', 'an account with resellers below it cannot be promoted or demoted');
    }
    if (account.reseller === reseller) return account;
    stmt(core.db, 'UPDATE accounts SET reseller = ?, modified = ? WHERE id = ?').run(reseller ? 1 : 0, Date.now(), account.id);
    clearRowCaches(core.db);
    publishObject(core, 'account', account.id, account.id, 'doc_edited');
    return getAccount(core, account.id);
  });
}
