import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import type { Core } from '../../core-type.js';
import { tempDir } from '../../../test/helpers/server.js';
import { initDatabase } from './bootstrap.js';
import { createAccount, deleteAccount, getAccount, listDescendants, updateAccount } from './service.js';
import { childrenPage, descendantsPage } from './tree-index.js';
import { moveAccount } from './move.js';
import { ApiError } from '../../errors.js';

/** The tree as the closure table holds it: `ancestor > account` at each depth, sorted. */
function closure(core: Core): string[] {
  return (core.db.prepare('SELECT ancestor_id, account_id, depth, name FROM account_tree').all() as { ancestor_id: string; account_id: string; depth: number; name: string }[])
    .map((r) => `${r.ancestor_id} > ${r.account_id} ${r.depth} ${r.name}`)
    .sort();
}

/** What the closure table must hold, made from each account's `tree` (its ancestors, root first). */
function expectedClosure(core: Core): string[] {
  return (core.db.prepare('SELECT id, tree, name FROM accounts').all() as { id: string; tree: string; name: string }[])
    .flatMap((a) => (JSON.parse(a.tree) as string[]).map((anc, i, line) => `${anc} > ${a.id} ${line.length - i} ${a.name}`))
    .sort();
}

describe('the account tree index', () => {
  let tmp: ReturnType<typeof tempDir>;
  let core: Core;
  let master: string;
  beforeEach(() => {
    tmp = tempDir('tel-tree-');
    core = openCore(join(tmp.dir, 'tree.db'));
    master = initDatabase(core, { account: 'Lab', username: 'admin', password: 'admin-pass' }).account_id;
  });
  afterEach(() => {
    closeCore(core);
    tmp.cleanup();
  });

  const make = (name: string, parentId: string) => createAccount(core, { name }, { parentId }).id;

  it('follows creation, renaming and deletion; children and descendants are listed by name, a page at a time', () => {
    const b = make('bravo', master);
    const a = make('Alpha', master);
    const a1 = make('a-one', a);
    const a11 = make('deep', a1);
    expect(closure(core)).toEqual(expectedClosure(core));
    expect(childrenPage(core, master, {}).items.map((r) => [r.name, r.descendants_count])).toEqual([['Alpha', 2], ['bravo', 0]]);
    updateAccount(core, b, { name: 'Charlie' }, 'merge');
    expect(closure(core)).toEqual(expectedClosure(core));
    const first = descendantsPage(core, master, { pageSize: 2 });
    expect(first.items.map((r) => r.name)).toEqual(['a-one', 'Alpha']);
    const second = descendantsPage(core, master, { pageSize: 2, startKey: first.nextStartKey });
    expect(second.items.map((r) => r.name)).toEqual(['Charlie', 'deep']);
    expect(second.nextStartKey).toBeUndefined();
    expect(descendantsPage(core, master, {}, true).items.map((r) => r.name)).toEqual(['deep', 'Charlie', 'Alpha', 'a-one']);
    deleteAccount(core, a11);
    expect(closure(core)).toEqual(expectedClosure(core));
    expect(listDescendants(core, a).map((x) => x.id)).toEqual([a1]);
  });

  it('a move re-parents an account and everything below it, in the index and in each account\'s tree', async () => {
    const r1 = make('Reseller 1', master);
    const r2 = make('Reseller 2', master);
    const c = make('Customer', r1);
    const site = make('Site', c);
    const office = make('Office', site);
    await moveAccount(core, undefined, c, r2);
    expect(closure(core)).toEqual(expectedClosure(core));
    expect(getAccount(core, c)).toMatchObject({ parentId: r2, tree: [master, r2] });
    expect(getAccount(core, office).tree).toEqual([master, r2, c, site]);
    expect(listDescendants(core, r1)).toEqual([]);
    expect(listDescendants(core, r2).map((x) => x.name)).toEqual(['Customer', 'Office', 'Site']);
    // to the top of the tree, and under a deeper account
    await moveAccount(core, undefined, site, master);
    expect(getAccount(core, office).tree).toEqual([master, site]);
    await moveAccount(core, undefined, c, office);
    expect(getAccount(core, c).tree).toEqual([master, site, office]);
    expect(closure(core)).toEqual(expectedClosure(core));
    // moving under itself or one of its own is refused, and changes nothing
    const before = closure(core);
    for (const [id, to] of [[site, site], [site, c]]) {
      await expect(moveAccount(core, undefined, id, to)).rejects.toThrow(ApiError);
    }
    await expect(moveAccount(core, undefined, 'f'.repeat(32), master)).rejects.toThrow(ApiError);
    expect(closure(core)).toEqual(before);
  });

  it('an existing database gets its tree index from the accounts it holds (migration 3000)', () => {
    const r = make('Reseller', master);
    make('Deep', make('Customer', r));
    // the database as it was before the index: no closure table, the older indexes
    core.db.exec(`DROP TABLE account_tree;
      DROP INDEX docs_account_kind; CREATE INDEX docs_account_kind ON docs(account_id, kind, created);
      DROP INDEX webhooks_account; CREATE INDEX webhooks_account ON webhooks(account_id, created);
      DROP INDEX push_subscriptions_account; DROP INDEX webhooks_auto_disabled; DROP INDEX docs_user_name;
      DROP INDEX push_notifications_account; CREATE INDEX push_notifications_account ON push_notifications(account_id, created);
      DROP INDEX delivery_attempts_account_created; CREATE INDEX delivery_attempts_created ON delivery_attempts(created);
      DROP INDEX delivery_attempts_source; CREATE INDEX delivery_attempts_source ON delivery_attempts(source_id, id);
      DELETE FROM schema_migrations WHERE id IN ('3000-account-tree', '3001-listing-indexes');`);
    const file = core.file;
    closeCore(core);
    core = openCore(file);
    expect(closure(core)).toHaveLength(6);
    expect(closure(core)).toEqual(expectedClosure(core));
  });
});
