import { DatabaseSync, type StatementSync } from 'node:sqlite';

/** One statement run while the log was on: its SQL, its arguments and the rows it handed back. */
export interface Executed {
  sql: string;
  args: unknown[];
  rows: number;
}

let current: Executed[] | undefined;
let installed = false;

/**
 * Records every statement run by every connection of this process (statements prepared after
 * this call: install it before opening the database). What a request costs in SQL is then read
 * from the log: which statements it ran (their plans checked with `planOf`), and how many rows
 * each handed back.
 */
export function installQueryLog(): void {
  if (installed) return;
  installed = true;
  const prepare = DatabaseSync.prototype.prepare;
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string, ...rest: unknown[]) {
    const st = (prepare as (this: DatabaseSync, sql: string, ...r: unknown[]) => StatementSync).call(this, sql, ...rest);
    const wrap = (name: 'all' | 'get' | 'run' | 'iterate', count: (result: unknown) => number) => {
      const original = st[name] as (...a: unknown[]) => unknown;
      (st as unknown as Record<string, unknown>)[name] = function (this: StatementSync, ...args: unknown[]) {
        const result = original.apply(this, args);
        current?.push({ sql, args, rows: count(result) });
        return result;
      };
    };
    wrap('all', (r) => (r as unknown[]).length);
    wrap('get', (r) => (r === undefined ? 0 : 1));
    wrap('run', () => 0);
    wrap('iterate', () => -1);
    return st;
  } as typeof prepare;
}

/** Runs `fn` and answers what it returned with the statements it ran. */
export async function logged<T>(fn: () => Promise<T>): Promise<{ result: T; queries: Executed[] }> {
  const queries: Executed[] = [];
  current = queries;
  try {
    return { result: await fn(), queries };
  } finally {
    current = undefined;
  }
}

/** The query plan of a statement, one line per step (`SEARCH …`, `SCAN …`, `USE TEMP B-TREE …`). */
export function planOf(db: DatabaseSync, sql: string): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
}

/**
 * The steps of a plan that read a whole table or index, or sort rows read, rather than search an
 * index for the rows wanted: what a listing that reads more than its page shows. A scan of
 * `json_each` reads a statement's argument (a list of values looked up one by one), and a scan of
 * a co-routine the rows its subquery hands over as they come: neither is a table.
 */
export function wholeTableSteps(plan: string[]): string[] {
  // a subquery's rows (a page merged from ranges) are read as they come: no table
  const coroutines = new Set(plan.flatMap((step) => /^CO-ROUTINE (\S+)$/.exec(step)?.[1] ?? []));
  const scansTable = (step: string) => /^SCAN /.test(step) && !/^SCAN (CONSTANT ROW|json_each VIRTUAL TABLE)/.test(step) && !coroutines.has(step.slice(5));
  return plan.filter((step) => scansTable(step) || /TEMP B-TREE/.test(step));
}

/** The index of `word` in `sql` outside parentheses (a subquery's own FROM or WHERE does not count), or -1. */
function topLevel(sql: string, word: string): number {
  let depth = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && sql.startsWith(word, i)) return i;
  }
  return -1;
}

const visitCounts = new WeakMap<DatabaseSync, { n: number }>();

/**
 * How many rows of its first table a SELECT reads to answer (of each range, for a page merged from
 * several in a subquery): the statement is run again with a counting function as the first
 * condition of its WHERE, which SQLite evaluates for every row the index range hands it, before
 * any other filter. Rows read, not rows answered: a page that skips rows to reach its start shows them.
 */
export function rowsRead(db: DatabaseSync, sql: string, args: unknown[]): number {
  let count = visitCounts.get(db);
  if (!count) {
    const c = { n: 0 };
    visitCounts.set(db, (count = c));
    db.function('tel_test_visit', { deterministic: false, varargs: true }, () => (c.n++, 1));
  }
  const firstColumn = (table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])[0].name;
  const from = topLevel(sql, ' FROM ');
  if (!/^\s*SELECT/i.test(sql) || from < 0) return 0;
  let counted: string;
  if (sql.startsWith(' FROM (', from)) {
    // a page merged from several ranges (a compound subquery): the rows of every one count
    counted = sql.replace(/ FROM (\w+) WHERE /g, (_, table: string) => ` FROM ${table} WHERE tel_test_visit(${table}.${firstColumn(table)}) AND `);
  } else {
    const where = topLevel(sql, ' WHERE ');
    if (where < 0) return 0;
    const [, table, alias] = /^ FROM (\w+)(?: (?!JOIN|LEFT|WHERE|INDEXED)(\w+))?/.exec(sql.slice(from))!;
    counted = `${sql.slice(0, where)} WHERE tel_test_visit(${alias ?? table}.${firstColumn(table)}) AND ${sql.slice(where + 7)}`;
  }
  count.n = 0;
  const prepare = DatabaseSync.prototype.prepare;
  (prepare as (this: DatabaseSync, s: string) => StatementSync).call(db, counted).all(...(args as never[]));
  return count.n;
}
