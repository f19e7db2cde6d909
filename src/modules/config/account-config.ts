import type { Db } from '../../store/db.js';
import { stmt } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';
import { nextRevision } from '../../util/ids.js';

/** An account's overrides of one system configuration category (flat keys). */
export interface AccountConfig {
  doc: Record<string, unknown>;
  rev: string;
}

const cacheOf = (db: Db) => rowCache<AccountConfig>(db, 'account_configs');

/** An account's overrides of `category`, or null; cached until any process writes the database. */
export function getAccountConfig(db: Db, accountId: string, category: string): AccountConfig | null {
  const row = cacheOf(db).get(`${accountId}/${category}`, () => {
    const r = stmt(db, 'SELECT doc, rev FROM account_configs WHERE account_id = ? AND category = ?').get(accountId, category) as
      | { doc: string; rev: string }
      | undefined;
    return r ? { doc: JSON.parse(r.doc) as Record<string, unknown>, rev: r.rev } : undefined;
  });
  return row ?? null;
}

/** Stores an account's overrides of `category` (an empty object removes them). */
export function setAccountConfig(db: Db, accountId: string, category: string, doc: Record<string, unknown>): AccountConfig | null {
  cacheOf(db).clear(`${accountId}/${category}`);
  if (Object.keys(doc).length === 0) {
    stmt(db, 'DELETE FROM account_configs WHERE account_id = ? AND category = ?').run(accountId, category);
    return null;
  }
  const body = JSON.stringify(doc);
  const prev = stmt(db, 'SELECT rev FROM account_configs WHERE account_id = ? AND category = ?').get(accountId, category) as
    | { rev: string }
    | undefined;
  const rev = nextRevision(prev?.rev, body);
  stmt(
    db,
    `INSERT INTO account_configs (account_id, category, doc, rev, modified) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(account_id, category) DO UPDATE SET doc = excluded.doc, rev = excluded.rev, modified = excluded.modified`,
  ).run(accountId, category, body, rev, Date.now());
  return { doc, rev };
}

/** The categories an account has settings of, by name. */
export function accountConfigCategories(db: Db, accountId: string): string[] {
  return (stmt(db, 'SELECT category FROM account_configs WHERE account_id = ? ORDER BY category').all(accountId) as { category: string }[]).map((r) => r.category);
}

/** The account config document id Kazoo answers for a category (`configs_webhooks`). */
export function accountConfigId(category: string): string {
  return `configs_${category}`;
}
