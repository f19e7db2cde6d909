import { DatabaseSync } from 'node:sqlite';

/** An account as a shell's completion offers it: what to insert, and what to show beside it. */
export interface AccountChoice {
  /** the account's name when that is what was being typed (and no other account has it), else its id */
  value: string;
  /** the other of the two */
  description: string;
}

/**
 * The accounts whose name or id starts with `prefix` (letter case aside), by name, for shell
 * completion: offered by name (every account option takes one), or by id when the id is what was
 * typed or another account has the same name. The file is opened read-only: pressing Tab never
 * creates, migrates or tightens a database; anything that goes wrong (no file, not a tel
 * database) throws for the caller to ignore.
 */
export function accountChoices(file: string, prefix: string, limit = 500): AccountChoice[] {
  // a server's checkpoint can hold the file for a moment: wait for it rather than offer nothing
  const db = new DatabaseSync(file, { readOnly: true, timeout: 1000 });
  try {
    const like = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
    const rows = db
      .prepare("SELECT id, name, name_norm FROM accounts WHERE id LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY name, id LIMIT ?2")
      .all(like, limit) as unknown as { id: string; name: string; name_norm: string }[];
    const shared = db.prepare('SELECT COUNT(*) AS n FROM accounts WHERE name_norm = ?');
    const typed = prefix.toLowerCase();
    return rows.map(({ id, name, name_norm }) => {
      const byName = name.toLowerCase().startsWith(typed) && !/[\t\r\n]/.test(name) && (shared.get(name_norm) as { n: number }).n === 1;
      return byName ? { value: name, description: id } : { value: id, description: name };
    });
  } finally {
    db.close();
  }
}
