import type { Core } from '../../core-type.js';
import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type KeysetListing, type Page, type PageQuery } from '../../store/pages.js';

/**
 * The account tree's index: `account_tree` holds a row for each account and each of its ancestors
 * (a closure table), keyed by the ancestor and then the account's name, so that descendants are
 * listed by name one page at a time and counted as one range of the key. `accounts.tree` (each
 * account's ancestors, root first) stays what access checks read; both change together, here.
 */

/** An account row as the tree listings read it. */
export interface TreeRow {
  id: string;
  parent_id: string | null;
  tree: string;
  name: string;
  realm: string;
  /** the document's `flags` (JSON), or null */
  flags: string | null;
}

const TREE_COLUMNS = "a.id, a.parent_id, a.tree, a.name, a.realm, json_extract(a.doc, '$.flags') AS flags";

/**
 * How many levels below the master account an account may sit (its ancestors, at most): what a
 * move rewrites, and the index holds, grows with the depth (two chains of 600 moved one under the
 * other took 4.5 s). Kazoo has no such bound; resellers' trees go a few levels deep.
 */
export const MAX_TREE_DEPTH = 32;

/** Adds a new account's rows, one per ancestor (`tree`, root first), in the transaction that creates it. */
export function addToTree(core: Core, id: string, name: string, tree: readonly string[]): void {
  const insert = stmt(core.db, 'INSERT INTO account_tree (ancestor_id, name, account_id, depth) VALUES (?, ?, ?, ?)');
  tree.forEach((ancestor, i) => insert.run(ancestor, name, id, tree.length - i));
}

/** Keeps the tree's copy of an account's name (its descendants are listed by it). */
export function renameInTree(core: Core, id: string, name: string): void {
  stmt(core.db, 'UPDATE account_tree SET name = ? WHERE account_id = ?').run(name, id);
}

/** Removes an account's rows (an account without descendants, being deleted). */
export function removeFromTree(core: Core, id: string): void {
  stmt(core.db, 'DELETE FROM account_tree WHERE account_id = ?').run(id);
}

/** True when the account has at least one sub-account. */
export function hasChildren(core: Core, id: string): boolean {
  return stmt(core.db, 'SELECT 1 FROM accounts WHERE parent_id = ? LIMIT 1').get(id) !== undefined;
}

/** True when an account below this one is a reseller. */
export function hasResellerBelow(core: Core, id: string): boolean {
  return stmt(core.db, 'SELECT 1 FROM account_tree t JOIN accounts a ON a.id = t.account_id WHERE t.ancestor_id = ? AND a.reseller = 1 LIMIT 1').get(id) !== undefined;
}

/** The SQL of the ids of an account and its descendants (parameter `?1`: the account id), for `IN (…)`. */
export const SUBTREE_IDS_SQL = 'SELECT ?1 UNION ALL SELECT account_id FROM account_tree WHERE ancestor_id = ?1';

/** A child as its listing reads it: with how many accounts are below it. */
export interface ChildRow extends TreeRow {
  descendants_count: number;
}

/** A child's columns: its row, and its descendants_count as a range of the tree's key. */
const CHILD_COLUMNS = `${TREE_COLUMNS}, (SELECT count(*) FROM account_tree d WHERE d.ancestor_id = a.id) AS descendants_count`;

/**
 * A page of an account's children by name (case ignored), then id, keyed by `[name, id]`, each
 * with its descendants_count (a range of the tree's key, read in the same statement).
 */
export function childrenPage(core: Core, id: string, q: PageQuery<CompoundKey>, descending = false): Page<ChildRow, CompoundKey> {
  const listing: KeysetListing<ChildRow> = {
    select: `SELECT ${CHILD_COLUMNS} FROM account_tree t JOIN accounts a ON a.id = t.account_id`,
    where: ['t.ancestor_id = ?', 't.depth = 1'],
    args: [id],
    order: ['t.name', 't.account_id'],
    descending,
    keyOf: (r) => [r.name, r.id],
  };
  return readKeysetPage(core.db, listing, q);
}

/** A root account as a page of children shows it (a page of one: the siblings of a root are itself). */
export function rootPage(core: Core, id: string, q: PageQuery<CompoundKey>): Page<ChildRow, CompoundKey> {
  const listing: KeysetListing<ChildRow> = {
    select: `SELECT ${CHILD_COLUMNS} FROM accounts a`,
    where: ['a.id = ?', 'a.parent_id IS NULL'],
    args: [id],
    order: ['a.name', 'a.id'],
    keyOf: (r) => [r.name, r.id],
  };
  return readKeysetPage(core.db, listing, q);
}

/** A page of an account's descendants by name (case ignored), then id; keyed by `[name, id]`. */
export function descendantsPage(core: Core, id: string, q: PageQuery<CompoundKey>, descending = false): Page<TreeRow, CompoundKey> {
  const listing: KeysetListing<TreeRow> = {
    select: `SELECT ${TREE_COLUMNS} FROM account_tree t JOIN accounts a ON a.id = t.account_id`,
    where: ['t.ancestor_id = ?'],
    args: [id],
    order: ['t.name', 't.account_id'],
    descending,
    keyOf: (r) => [r.name, r.id],
  };
  return readKeysetPage(core.db, listing, q);
}
