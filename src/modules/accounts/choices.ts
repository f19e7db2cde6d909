import { DatabaseSync } from 'node:sqlite';

/** An account as a shell's completion offers it. */
export interface AccountChoice {
  id: string;
  name: string;
}

/**
 * The accounts whose id or name starts with `prefix` (letter case aside), by name, for shell
 * completion. The file is opened read-only: pressing Tab never creates, migrates or tightens a
 * database; anything that goes wrong (no file, not a tel database) throws for the caller to ignore.
 */
export function accountChoices(file: string, prefix: string, limit = 500): AccountChoice[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const like = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
    return db
      .prepare("SELECT id, name FROM accounts WHERE id LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY name, id LIMIT ?2")
      .all(like, limit) as unknown as AccountChoice[];
  } finally {
    db.close();
  }
}
