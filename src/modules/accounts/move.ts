import type { Core, Worker } from '../../core-type.js';
import { errors } from '../../errors.js';
import { isBusy, stmt, transaction } from '../../store/db.js';
import { clearRowCaches } from '../../store/cache.js';
import { publishObject } from '../documents/store.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import { ACCOUNTS_CONFIG } from './tree.js';
import { findAccount, getAccount, masterAccount, type Account } from './service.js';
import { MAX_TREE_DEPTH } from './tree-index.js';

/**
 * Moving an account under another parent rewrites, for it and every account below it, the line
 * of ancestors (`accounts.tree`) and the tree's index (`account_tree`): rows in proportion to the
 * subtree's size and depth. In one step a 10,000-account subtree (or two chains of 600 moved one
 * under the other: 4.5 s) held every tenant's requests; here the rewrite goes a slice at a time,
 * each slice one transaction of about SLICE_MS, the event loop left to others PAUSE_MS between them. The moved
 * account is rewritten first, with a row in `account_moves`; the rest follow from its line, so a
 * process that stops half-way leaves a move that the next server, or the next move, finishes.
 * Moves of a process run one after another.
 */

/** How long one slice of a move holds the event loop and the write lock, at most (about: one account more may finish it). */
export const SLICE_MS = 5;

/**
 * How long the event loop is left to others between two slices: a request takes several turns of
 * the loop (read, answer, write), and each would otherwise wait for a slice.
 */
export const PAUSE_MS = 5;

/** Between two tries of a slice that met another process's lock. */
const BUSY_RETRY_MS = 20;

/** The moves of each database, one after another. */
const queues = new WeakMap<Core['db'], Promise<unknown>>();

/** Runs `fn` after the moves already queued on this database. */
function queued<T>(core: Core, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(core.db) ?? Promise.resolve()).then(fn, fn);
  queues.set(core.db, run.catch(() => undefined));
  return run;
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, PAUSE_MS));

/** Runs one slice in a transaction; a lock another process holds is waited for, without blocking. */
async function slice<T>(core: Core, fn: () => T): Promise<T> {
  for (;;) {
    try {
      return transaction(core.db, fn);
    } catch (err) {
      if (!isBusy(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }
}

/**
 * Who may move an account: a super-duper admin, as Kazoo's default (`allow_move`
 * `superduper_admin`); with `allow_move` `tree`, also an admin whose account is the moved
 * account's or an ancestor of it and the new parent's or an ancestor of it — an admin of both
 * ends. An unknown parent is refused like a foreign one, so ids cannot be probed.
 */
function checkMove(core: Core, actor: Actor, account: Account, to: Account | undefined): void {
  if (actor.isSuperduper) return;
  if (core.config.value<unknown>(ACCOUNTS_CONFIG, 'allow_move', 'superduper_admin') !== 'tree') {
    throw errors.forbidden('moving accounts needs a super-duper admin (crossbar.accounts allow_move)');
  }
  const above = (a: Account) => a.id === actor.accountId || a.tree.includes(actor.accountId);
  if (!isAccountAdmin(core, actor) || !above(account) || !to || !above(to)) {
    throw errors.forbidden('moving an account needs an admin of it and of its new parent');
  }
}

/**
 * Moves an account, its sub-accounts with it, under a new parent (`POST …/move` with `to`), in
 * slices (see above); resolves with the account once every account below it is rewritten. The
 * master account stays the root; an account cannot go under itself or its own sub-accounts, nor
 * so low that an account of its subtree would sit more than MAX_TREE_DEPTH levels below the
 * master account. Publishes `doc_edited` for every account whose tree changed. `actor`
 * undefined: the operator (the CLI).
 */
export function moveAccount(core: Core, actor: Actor | undefined, accountId: string, toId: unknown): Promise<Account> {
  if (typeof toId !== 'string' || toId === '') return Promise.reject(errors.invalidField('to', 'required', "Field 'to' is required"));
  return queued(core, async () => {
    await finishPendingMoves(core);
    const moving = await slice(core, () => startMove(core, actor, accountId, toId));
    if (moving) await rewriteSubtree(core, moving);
    return getAccount(core, accountId);
  });
}

/** Checks a move and rewrites the moved account itself; answers its id, or undefined when it is already there. */
function startMove(core: Core, actor: Actor | undefined, accountId: string, toId: string): string | undefined {
  const account = getAccount(core, accountId);
  const to = findAccount(core, toId);
  if (actor) checkMove(core, actor, account, to);
  if (!to) throw errors.badIdentifier(toId);
  if (masterAccount(core)?.id === account.id) throw errors.forbidden('the master account cannot be moved');
  if (to.id === account.id || to.tree.includes(account.id)) throw errors.forbidden('an account cannot move under itself or one of its sub-accounts');
  if (account.parentId === to.id) return undefined;
  const line = [...to.tree, to.id];
  const below = (stmt(core.db, 'SELECT max(depth) AS d FROM account_tree WHERE ancestor_id = ?').get(account.id) as { d: number | null }).d ?? 0;
  if (line.length + below > MAX_TREE_DEPTH) {
    throw errors.invalidField('to', 'maximum', `an account sits at most ${MAX_TREE_DEPTH} levels below the master account: this move would put one ${line.length + below} levels below it`, {
      target: MAX_TREE_DEPTH,
      value: toId,
    });
  }
  stmt(core.db, 'INSERT OR REPLACE INTO account_moves (account_id, started) VALUES (?, ?)').run(account.id, Date.now());
  stmt(core.db, 'UPDATE accounts SET parent_id = ? WHERE id = ?').run(to.id, account.id);
  rewriteLine(core, account.id, 0, line);
  clearRowCaches(core.db);
  return account.id;
}

/**
 * Gives an account the line `above` (root first) above the account `depth` levels over it (0:
 * itself) that moves: its rows under the ancestors above that one go, the new line's come, and
 * its `tree` is the new line and what it had from there down.
 */
function rewriteLine(core: Core, id: string, depth: number, above: readonly string[]): void {
  const row = stmt(core.db, 'SELECT name, tree FROM accounts WHERE id = ?').get(id) as { name: string; tree: string } | undefined;
  if (!row) return;
  const tree = JSON.parse(row.tree) as string[];
  const kept = tree.slice(tree.length - depth);
  stmt(core.db, 'DELETE FROM account_tree WHERE account_id = ? AND depth > ?').run(id, depth);
  const insert = stmt(core.db, 'INSERT OR REPLACE INTO account_tree (ancestor_id, name, account_id, depth) VALUES (?, ?, ?, ?)');
  above.forEach((ancestor, i) => insert.run(ancestor, row.name, id, depth + above.length - i));
  stmt(core.db, 'UPDATE accounts SET tree = ?, modified = ? WHERE id = ?').run(JSON.stringify([...above, ...kept]), Date.now(), id);
  publishObject(core, 'account', id, id, 'doc_edited');
}

/** A descendant of the moved account, with how far below it it is and its line now. */
interface Below {
  name: string;
  account_id: string;
  depth: number;
  tree: string;
}

/**
 * Rewrites, a slice at a time, the accounts below a moved one whose line is not yet the one its
 * own now leads to, by name and id (an account created meanwhile under one not yet rewritten is
 * found too: it is below the moved account either way), then ends the move.
 */
async function rewriteSubtree(core: Core, movedId: string): Promise<void> {
  // where the walk is: after this name and id; undefined: the walk is done, a last look remains
  let after: [string, string] | undefined = ['', ''];
  for (;;) {
    const from: [string, string] | undefined = after;
    // the slice answers where the next one starts (a slice run again after a busy lock starts where it did)
    const next: [string, string] | undefined | 'done' = await slice(core, () => (from ? walkSlice(core, movedId, from) : endMove(core, movedId)));
    if (next === 'done') return;
    after = next;
    await pause();
  }
}

/** The start of the line of every account below the moved one (its id's closing quote ends it: no other line starts so). */
function linePrefix(moved: Account): string {
  return JSON.stringify([...moved.tree, moved.id]).slice(0, -1);
}

/**
 * One slice of the walk: rewrites the accounts after `from` (by name and id) until SLICE_MS has
 * passed; answers where the next slice starts, undefined once the walk is over, or `done` when the
 * moved account is gone.
 */
function walkSlice(core: Core, movedId: string, from: [string, string]): [string, string] | undefined | 'done' {
  const moved = findAccount(core, movedId);
  if (!moved) return endMove(core, movedId);
  const prefix = linePrefix(moved);
  const page = stmt(
    core.db,
    `SELECT t.name, t.account_id, t.depth, a.tree FROM account_tree t JOIN accounts a ON a.id = t.account_id
      WHERE t.ancestor_id = ? AND (t.name > ? OR (t.name = ? AND t.account_id > ?)) ORDER BY t.name, t.account_id LIMIT 256`,
  );
  const started = performance.now();
  let at = from;
  try {
    for (;;) {
      const rows = page.all(movedId, at[0], at[0], at[1]) as unknown as Below[];
      for (const r of rows) {
        at = [r.name, r.account_id];
        // already on the new line (a move resumed, or an account created under a rewritten one)
        if (!r.tree.startsWith(prefix)) rewriteLine(core, r.account_id, r.depth, moved.tree);
        if (performance.now() - started > SLICE_MS) return at;
      }
      if (rows.length < 256) return undefined;
    }
  } finally {
    clearRowCaches(core.db);
  }
}

/**
 * The last slice of a move: any account below still on the old line (renamed during the walk, its
 * place in the order changed) is rewritten, and the move is over.
 */
function endMove(core: Core, movedId: string): 'done' {
  const moved = findAccount(core, movedId);
  if (moved) {
    const prefix = linePrefix(moved);
    const stale = stmt(
      core.db,
      `SELECT t.account_id, t.depth FROM account_tree t JOIN accounts a ON a.id = t.account_id
        WHERE t.ancestor_id = ? AND substr(a.tree, 1, ?) <> ?`,
    ).all(movedId, prefix.length, prefix) as { account_id: string; depth: number }[];
    for (const r of stale) rewriteLine(core, r.account_id, r.depth, moved.tree);
  }
  stmt(core.db, 'DELETE FROM account_moves WHERE account_id = ?').run(movedId);
  clearRowCaches(core.db);
  return 'done';
}

/** Finishes the moves a process left half-way (the oldest first). */
async function finishPendingMoves(core: Core): Promise<void> {
  const pending = stmt(core.db, 'SELECT account_id FROM account_moves ORDER BY started').all() as { account_id: string }[];
  for (const { account_id } of pending) await rewriteSubtree(core, account_id);
}

/** A server's worker: finishes, in slices, the moves a process left half-way. */
export function resumeAccountMoves(core: Core): Worker {
  const running = queued(core, () => finishPendingMoves(core)).catch(() => undefined);
  return { stop: async () => void (await running) };
}
