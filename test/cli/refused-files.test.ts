import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { runTel, spawnTel } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

/** What a file is, to the byte and the mode bit, and what lies beside it. */
function snapshot(file: string): { sha256: string; mode: string; beside: string[] } {
  return {
    sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
    mode: (statSync(file).mode & 0o777).toString(8),
    beside: readdirSync(join(file, '..')).filter((n) => n.startsWith(file.split('/').pop()!)),
  };
}

describe('files tel refuses are left as they were', () => {
  const tmp = tempDir('tel-refused-');
  afterAll(() => tmp.cleanup());
  const SCHEMA = MIGRATIONS.length;

  /** A tel database, as `tel init` makes it, readable by others (0644). */
  async function telDb(name: string): Promise<string> {
    const file = join(tmp.dir, name);
    const init = await runTel(['init', '--db', file, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    expect(init.code, init.stderr).toBe(0);
    chmodSync(file, 0o644);
    return file;
  }

  it('tel --version says which database schema it writes: as many as it has migrations', async () => {
    const r = await runTel(['--version']);
    expect(r.stdout.trim()).toMatch(new RegExp(`^\\d+\\.\\d+\\.\\d+ \\(database schema ${SCHEMA}\\)$`));
    // and a database it made says so too
    const file = await telDb('versioned.db');
    const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SCHEMA });
    db.close();
  });

  it('a database from a newer tel (a higher schema, an unknown migration) is refused by the CLI and by serve, byte for byte unchanged', async () => {
    const file = await telDb('newer.db');
    const db = new DatabaseSync(file, { timeout: 5000 });
    db.exec(`INSERT INTO schema_migrations (id, applied_at) VALUES ('9900-from-the-future', 1); PRAGMA user_version = ${SCHEMA + 1}`);
    db.close();
    const before = snapshot(file);
    // the database and its login key (made by init for the admin's password), nothing else
    expect(before.beside).toEqual(['newer.db', 'newer.db.key']);
    const sentence = `${file} was written by a newer tel (schema ${SCHEMA + 1}, this tel knows ${SCHEMA}).\n`;
    for (const args of [['accounts', 'list'], ['config', 'set', 'crossbar.auth', 'token_expiry_s', '600'], ['serve', '--port', '0']]) {
      const r = await spawnTel([...args, '--db', file]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toBe(sentence);
      expect(r.stdout).not.toMatch(/listening/);
      expect(snapshot(file), args.join(' ')).toEqual(before);
    }
  });

  it('a newer database with its write-ahead log in use beside it is refused too, neither file changed', async () => {
    const file = await telDb('newer-live.db');
    // a newer tel serving it: the log holds commits the file does not have yet
    const newer = new DatabaseSync(file, { timeout: 5000 });
    try {
      newer.exec('PRAGMA wal_autocheckpoint = 0');
      // as many migrations as this tel knows, one of them not one it knows (another line of tel)
      newer.exec(`UPDATE schema_migrations SET id = '9900-from-elsewhere' WHERE id = '${MIGRATIONS.at(-1)!.id}'`);
      const before = snapshot(file);
      const wal = createHash('sha256').update(readFileSync(`${file}-wal`)).digest('hex');
      const r = await runTel(['accounts', 'list', '--db', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`${file} was written by a newer tel (schema ${SCHEMA}, this tel knows ${SCHEMA}; it has migration 9900-from-elsewhere).\n`);
      expect(snapshot(file)).toEqual(before);
      expect(createHash('sha256').update(readFileSync(`${file}-wal`)).digest('hex')).toBe(wal);
    } finally {
      newer.close();
    }
  });

  it("a file that is not a database, or another program's database, keeps its content and its mode, also through a symlink", async () => {
    const garbage = join(tmp.dir, 'garbage.db');
    writeFileSync(garbage, 'not SQLite at all, but long enough to look like a header of some kind.\n'.repeat(20));
    const truncated = join(tmp.dir, 'truncated.db');
    writeFileSync(truncated, readFileSync(await telDb('whole.db')).subarray(0, 3000));
    const foreign = join(tmp.dir, 'foreign.db');
    const other = new DatabaseSync(foreign, { timeout: 5000 });
    other.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
    other.close();
    const link = join(tmp.dir, 'link-to-garbage.db');
    symlinkSync(garbage, link);
    for (const file of [garbage, truncated, foreign]) chmodSync(file, 0o644);
    for (const [file, why] of [
      [garbage, /^Cannot open the database .*garbage\.db: file is not a database\.$/],
      [link, /^Cannot open the database .*link-to-garbage\.db: file is not a database\.$/],
      [truncated, /^Cannot open the database .*truncated\.db: .+\.$/],
      [foreign, /^.*foreign\.db is an SQLite database, but not a tel one\.$/],
    ] as const) {
      const target = file === link ? garbage : file;
      const before = snapshot(target);
      for (const args of [['accounts', 'list'], ['init', '--account', 'A', '--username', 'u', '--password', 'p'], ['serve', '--port', '0']]) {
        const r = await spawnTel([...args, '--db', file]);
        expect(r.code, `${args.join(' ')} ${file}`).toBe(1);
        expect(r.stderr.trim()).toMatch(why);
        expect(snapshot(target), `${args.join(' ')} ${file}`).toEqual(before);
      }
    }
  });

  it("tel's own database is tightened to 0600, through a symlink too (the link's target)", async () => {
    const file = await telDb('own.db');
    const link = join(tmp.dir, 'link-to-own.db');
    symlinkSync(file, link);
    const r = await runTel(['accounts', 'list', '--db', link]);
    expect(r.code, r.stderr).toBe(0);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(existsSync(`${link}-wal`)).toBe(false);
  });
});
