import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Core } from '../core-type.js';
import { openDb, stmt, transaction } from '../store/db.js';
import { clearRowCaches } from '../store/cache.js';
import { createAccount, masterAccount } from '../modules/accounts/service.js';
import { listUsers } from '../modules/users/service.js';

/** What a reset kept: the master account and its admin users. */
export interface ResetResult {
  account_id: string;
  name: string;
  usernames: string[];
}

/**
 * Empties the database back to what `tel init` makes: every table as a new database has it
 * (the rows migrations put there included), then the master account again, with its id, name,
 * realm and API key, and its admin users with their passwords (the same credentials keep
 * working). One transaction. Undefined when there is no master account to keep.
 */
export function resetDatabase(core: Core): ResetResult | undefined {
  const master = masterAccount(core);
  if (!master) return undefined;
  const admins = listUsers(core, master.id).filter((u) => u.doc.priv_level === 'admin');
  const dir = mkdtempSync(join(tmpdir(), 'tel-reset-'));
  try {
    // a new database, migrated, is what every table goes back to
    openDb(join(dir, 'fresh.db')).close();
    core.db.prepare('ATTACH DATABASE ? AS fresh').run(join(dir, 'fresh.db'));
    try {
      transaction(core.db, () => {
        const tables = (
          core.db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'").all() as {
            name: string;
          }[]
        ).map((t) => t.name);
        for (const t of tables) {
          core.db.exec(`DELETE FROM main."${t}"`);
          core.db.exec(`INSERT INTO main."${t}" SELECT * FROM fresh."${t}"`);
        }
        if (core.db.prepare("SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'").get()) core.db.exec('DELETE FROM main.sqlite_sequence');
        clearRowCaches(core.db);
        createAccount(core, { name: master.name, realm: master.realm }, { id: master.id, superduper: true, apiKey: master.apiKey });
        for (const u of admins) {
          stmt(core.db, 'INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
            u.id,
            u.kind,
            u.accountId,
            JSON.stringify(u.doc),
            JSON.stringify(u.pvt),
            u.rev,
            u.created,
            u.modified,
          );
        }
      });
    } finally {
      core.db.exec('DETACH DATABASE fresh');
    }
    clearRowCaches(core.db);
    return { account_id: master.id, name: master.name, usernames: admins.map((u) => String(u.doc.username)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
