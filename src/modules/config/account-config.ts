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

/**
 * The keys Kazoo's `account_config.<category>` schemas let an account set, by category: what an
 * account sees of the settings it inherits (the system's, its reseller's) in those categories.
 */
export const KAZOO_ACCOUNT_CONFIG_KEYS: Readonly<Record<string, readonly string[]>> = {
  call_command: ['unknown_cid_name'],
  callflow: ['dialog_subscribed_mwi_prefix'],
  cdr: ['ignore_loopback_bowout'],
  conferences: ['controls', 'entry_tone', 'exit_tone', 'moderator_entry_tone', 'moderator_exit_tone', 'number_timeout', 'pin_timeout', 'support_name_announcement'],
  'crossbar.auth': ['auth_modules'],
  'crossbar.sms': ['api_e164_convert_from', 'api_e164_convert_to'],
  doodle: ['api_preserve_caller_id', 'reschedule'],
  fax: ['default_smtp_domain', 'log_faxbox_errors', 'max_outbound'],
  kazoo_endpoint: ['default_can_text_self'],
  keys: ['voicemail'],
  ledgers: ['registered_ledgers'],
  media: ['call_recording'],
  notify: ['notify_persist_exceptions', 'should_persist_for_retry'],
  number_manager: ['unauthorized_numbers_lookup'],
  omnipresence: ['dialog_subscribed_mwi_prefix'],
  privacy: ['block_anonymous_caller_id', 'privacy_mode'],
  'tasks.bill_early': ['bill_early_enabled', 'reminder_enabled'],
  webhooks: ['attempt_failure_count', 'attempt_failure_expiry_ms'],
};
