// Which index answers the account tree: a closure table or a materialised path. Both are built
// beside the `accounts` table of a scratch SQLite file at the sizes labs reach (a master with 3,000
// children, one of them a reseller with 7,000 descendants; a chain 300 deep) and timed on what
// tel asks of them: a page of children with each child's descendants_count, a page of
// descendants (first and last), a walk of every page, an account created, a 7,000-account subtree
// moved, and the bytes they take. Prints a table and one JSON line.
//   npx node scripts/bench/account-tree.mjs [--children 3000] [--reseller 7000] [--depth 300] [--page 50]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { randomBytes } from 'node:crypto';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const CHILDREN = opt('children', 3000);
const RESELLER = opt('reseller', 7000);
const DEPTH = opt('depth', 300);
const PAGE = opt('page', 50);

const id = () => randomBytes(16).toString('hex');
const name = (i) => `Customer ${String(i).padStart(6, '0')} ${randomBytes(2).toString('hex')}`;

/** The two structures: how each is made, maintained and read. */
const STRUCTURES = {
  closure: {
    schema: `
      CREATE TABLE account_tree (
        ancestor_id TEXT NOT NULL, name TEXT NOT NULL COLLATE NOCASE, account_id TEXT NOT NULL, depth INTEGER NOT NULL,
        PRIMARY KEY (ancestor_id, name, account_id)) WITHOUT ROWID;
      CREATE INDEX account_tree_account ON account_tree(account_id, depth);
      CREATE INDEX account_tree_children ON account_tree(ancestor_id, name) WHERE depth = 1;`,
    childrenSql: `SELECT a.id, a.name FROM account_tree t JOIN accounts a ON a.id = t.account_id
      WHERE t.ancestor_id = ? AND t.depth = 1 AND (t.name, t.account_id) > (?, ?) ORDER BY t.name, t.account_id LIMIT ?`,
    insert(db, a, ancestors) {
      const ins = db.prepare('INSERT INTO account_tree (ancestor_id, name, account_id, depth) VALUES (?, ?, ?, ?)');
      ancestors.forEach((anc, i) => ins.run(anc, a.name, a.id, ancestors.length - i));
    },
    countSql: 'SELECT count(*) AS n FROM account_tree WHERE ancestor_id = ?',
    pageSql: `SELECT a.id, a.name, a.realm, a.tree FROM account_tree t JOIN accounts a ON a.id = t.account_id
      WHERE t.ancestor_id = ? AND (t.name, t.account_id) > (?, ?) ORDER BY t.name, t.account_id LIMIT ?`,
    pageArgs: (root, key) => [root, key?.name ?? '', key?.id ?? ''],
    keyOf: (row) => ({ name: row.name, id: row.id }),
    move(db, subtreeRoot, newParent) {
      // the subtree (its root at depth 0) loses the ancestors above its root and gains the new parent's line, in two statements
      db.prepare(`DELETE FROM account_tree WHERE ancestor_id IN (SELECT ancestor_id FROM account_tree WHERE account_id = ?1)
        AND account_id IN (SELECT account_id FROM account_tree WHERE ancestor_id = ?1 UNION ALL SELECT ?1)`).run(subtreeRoot);
      db.prepare(`INSERT INTO account_tree (ancestor_id, name, account_id, depth)
        SELECT p.ancestor_id, s.name, s.account_id, p.depth + s.depth
        FROM (SELECT ancestor_id, depth + 1 AS depth FROM account_tree WHERE account_id = ?2 UNION ALL SELECT ?2, 1) p,
             (SELECT name, account_id, depth FROM account_tree WHERE ancestor_id = ?1 UNION ALL SELECT name, id, 0 FROM accounts WHERE id = ?1) s`).run(subtreeRoot, newParent);
    },
  },
  path: {
    schema: `
      ALTER TABLE accounts ADD COLUMN path TEXT;
      CREATE INDEX accounts_path ON accounts(path);
      CREATE INDEX accounts_children ON accounts(parent_id, name, id);`,
    childrenSql: 'SELECT id, name FROM accounts WHERE parent_id = ? AND (name, id) > (?, ?) ORDER BY name, id LIMIT ?',
    insert(db, a, ancestors) {
      db.prepare('UPDATE accounts SET path = ? WHERE id = ?').run(`${[...ancestors, a.id].join('/')}/`, a.id);
    },
    // the range of paths under the account's own: its descendants, in path order (ids, not names)
    countSql: `SELECT count(*) AS n FROM accounts WHERE path > (SELECT path FROM accounts WHERE id = ?1) AND path < (SELECT path FROM accounts WHERE id = ?1) || '~'`,
    pageSql: `SELECT a.id, a.name, a.realm, a.tree, a.path FROM accounts a
      WHERE a.path > max((SELECT path FROM accounts WHERE id = ?1), ?2) AND a.path < (SELECT path FROM accounts WHERE id = ?1) || '~'
      ORDER BY a.path LIMIT ?3`,
    pageArgs: (root, key) => [root, key?.path ?? ''],
    keyOf: (row) => ({ path: row.path }),
    move(db, subtreeRoot, newParent) {
      const oldPath = db.prepare('SELECT path FROM accounts WHERE id = ?').get(subtreeRoot).path;
      const parentPath = db.prepare('SELECT path FROM accounts WHERE id = ?').get(newParent).path;
      const newPath = `${parentPath}${subtreeRoot}/`;
      db.prepare(`UPDATE accounts SET path = ?1 || substr(path, length(?2) + 1) WHERE path >= ?2 AND path < ?2 || '~'`).run(newPath, oldPath);
    },
  },
};

function build(kind) {
  const dir = mkdtempSync(join(tmpdir(), 'tel-tree-'));
  const db = new DatabaseSync(join(dir, 'tree.db'));
  db.exec('PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  db.exec(`CREATE TABLE accounts (id TEXT PRIMARY KEY, parent_id TEXT, tree TEXT NOT NULL, name TEXT NOT NULL, realm TEXT NOT NULL, created INTEGER NOT NULL);
    CREATE INDEX accounts_parent ON accounts(parent_id);`);
  const s = STRUCTURES[kind];
  const before = db.prepare('PRAGMA page_count').get().page_count;
  db.exec(s.schema);
  const add = db.prepare('INSERT INTO accounts (id, parent_id, tree, name, realm, created) VALUES (?, ?, ?, ?, ?, ?)');
  let n = 0;
  const create = (parent, ancestors) => {
    const a = { id: id(), name: name(n++) };
    add.run(a.id, parent ?? null, JSON.stringify(ancestors), a.name, `${a.id.slice(0, 8)}.tel.local`, Date.now());
    s.insert(db, a, ancestors);
    return a;
  };
  const shape = {};
  db.exec('BEGIN');
  const master = create(undefined, []);
  shape.master = master.id;
  const kids = [];
  for (let i = 0; i < CHILDREN; i++) kids.push(create(master.id, [master.id]));
  shape.reseller = kids[Math.floor(CHILDREN / 2)].id;
  shape.other = kids[1].id;
  // the reseller's customers, and theirs: ten levels of fan-out until RESELLER accounts
  let level = [{ id: shape.reseller, line: [master.id, shape.reseller] }];
  let made = 0;
  while (made < RESELLER) {
    const next = [];
    for (const p of level) {
      for (let k = 0; k < 30 && made < RESELLER; k++, made++) {
        const c = create(p.id, p.line);
        next.push({ id: c.id, line: [...p.line, c.id] });
      }
    }
    level = next;
  }
  // a chain DEPTH deep under another child
  let line = [master.id, shape.other];
  for (let d = 0; d < DEPTH; d++) {
    const c = create(line.at(-1), line);
    line = [...line, c.id];
  }
  shape.deepest = line.at(-1);
  db.exec('COMMIT');
  db.exec('ANALYZE');
  const pages = db.prepare('PRAGMA page_count').get().page_count;
  return { db, dir, shape, total: n, bytes: (pages - before) * 8192, s };
}

const ms = (fn, runs = 5) => {
  const times = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    out = fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { ms: +times[Math.floor(times.length / 2)].toFixed(3), out };
};

function measure(kind) {
  const { db, dir, shape, total, bytes, s } = build(kind);
  const count = db.prepare(s.countSql);
  const page = db.prepare(s.pageSql);
  const children = db.prepare(s.childrenSql);
  const childPage = (key) => {
    const rows = children.all(shape.master, key?.name ?? '', key?.id ?? '', PAGE);
    for (const r of rows) r.descendants_count = count.get(r.id).n;
    return rows;
  };
  const readPage = (root, key) => page.all(...s.pageArgs(root, key), PAGE);
  // the last page of the master's children holds the reseller's 7,000 when it sorts last; take the page that holds it
  const resellerName = db.prepare('SELECT name FROM accounts WHERE id = ?').get(shape.reseller).name;
  const resellerPageKey = { name: resellerName, id: '' };
  const walk = (root) => {
    let key;
    let rows = 0;
    let pages = 0;
    for (;;) {
      const got = readPage(root, key);
      rows += got.length;
      pages++;
      if (got.length < PAGE) return { rows, pages };
      key = s.keyOf(got.at(-1));
      if (kind === 'closure') key.name = got.at(-1).name;
    }
  };
  const lastKeyOf = (root) => {
    let key;
    for (;;) {
      const got = readPage(root, key);
      if (got.length < PAGE) return key;
      key = s.keyOf(got.at(-1));
    }
  };
  const masterLast = lastKeyOf(shape.master);
  const result = {
    accounts: total,
    index_bytes: bytes,
    children_page_ms: ms(() => childPage()).ms,
    children_page_with_reseller_ms: ms(() => childPage(resellerPageKey)).ms,
    descendants_count_master_ms: ms(() => count.get(shape.master).n).ms,
    descendants_first_page_ms: ms(() => readPage(shape.master)).ms,
    descendants_last_page_ms: ms(() => readPage(shape.master, masterLast)).ms,
    descendants_walk_ms: ms(() => walk(shape.master), 3).ms,
    deep_account_ancestors_ms: ms(() => db.prepare('SELECT tree FROM accounts WHERE id = ?').get(shape.deepest)).ms,
    create_under_deepest_ms: ms(() => {
      db.exec('BEGIN');
      const line = [...JSON.parse(db.prepare('SELECT tree FROM accounts WHERE id = ?').get(shape.deepest).tree), shape.deepest];
      const a = { id: id(), name: 'new' };
      db.prepare('INSERT INTO accounts (id, parent_id, tree, name, realm, created) VALUES (?, ?, ?, ?, ?, ?)').run(a.id, shape.deepest, JSON.stringify(line), a.name, a.id, 0);
      s.insert(db, a, line);
      db.exec('ROLLBACK');
    }).ms,
    move_7000_ms: ms(() => {
      db.exec('BEGIN');
      s.move(db, shape.reseller, shape.other);
      db.exec('ROLLBACK');
    }, 3).ms,
    descendants_by_name_plan: db
      .prepare(`EXPLAIN QUERY PLAN ${kind === 'closure' ? s.pageSql : s.pageSql.replace('ORDER BY a.path', 'ORDER BY a.name COLLATE NOCASE, a.id')}`)
      .all(...s.pageArgs(shape.master), PAGE)
      .map((r) => r.detail)
      .join('; '),
  };
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const results = { closure: measure('closure'), path: measure('path') };
const rows = Object.keys(results.closure).filter((k) => k !== 'descendants_by_name_plan');
console.log(`${'measure'.padEnd(34)}${'closure'.padStart(12)}${'path'.padStart(12)}`);
for (const k of rows) console.log(`${k.padEnd(34)}${String(results.closure[k]).padStart(12)}${String(results.path[k]).padStart(12)}`);
console.log(`descendants by name, closure: ${results.closure.descendants_by_name_plan}`);
console.log(`descendants by name, path:    ${results.path.descendants_by_name_plan}`);
console.log(JSON.stringify({ bench: 'account-tree', ok: true, children: CHILDREN, reseller: RESELLER, depth: DEPTH, page: PAGE, ...results }));
