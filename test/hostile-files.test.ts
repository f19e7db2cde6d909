import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTel, TEL_BIN } from './helpers/cli.js';
import { tempDir } from './helpers/server.js';
import { startTel, startTelServe, startTelSink, until, type TelProcess } from './helpers/tel-process.js';

/** Runs SQL on a database file as an older tel, or someone with the file (who may write its schema itself), could have. */
function onFile(file: string, fn: (db: DatabaseSync) => void): void {
  const db = new DatabaseSync(file, { defensive: false, timeout: 5000 });
  try {
    fn(db);
  } finally {
    db.close();
  }
}

/** Row 3 of the hostile-tenant review: a backup is a file from elsewhere. */
describe('tel restore of a backup whose schema tel did not make', () => {
  const tmp = tempDir('tel-hostile-restore-');
  const db = join(tmp.dir, 'lab.db');
  let good = '';

  beforeAll(async () => {
    const init = await spawnTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw-admin-1']);
    expect(init.code, init.stderr).toBe(0);
    good = join(tmp.dir, 'good.db');
    expect((await spawnTel(['backup', good, '--db', db])).code).toBe(0);
  }, 30_000);
  afterAll(() => tmp.cleanup());

  /** A copy of the good backup, changed by `sql`. */
  function tampered(name: string, sql: string): string {
    const file = join(tmp.dir, `${name}.db`);
    copyFileSync(good, file);
    onFile(file, (f) => f.exec(sql));
    return file;
  }

  const triggers = (file: string) => {
    const f = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
    try {
      return (f.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name);
    } finally {
      f.close();
    }
  };

  it.each([
    [
      'a trigger that puts deleted tokens back',
      'keep_tokens',
      `CREATE TRIGGER keep_tokens AFTER DELETE ON tokens BEGIN
         INSERT INTO tokens (id, account_id, owner_id, method, restrictions, login_restrictions, created, modified)
         VALUES (old.id, old.account_id, old.owner_id, old.method, old.restrictions, old.login_restrictions, old.created, old.modified);
       END`,
      /trigger tel does not make \(keep_tokens\)/,
    ],
    ['a view', 'everything', 'CREATE VIEW everything AS SELECT * FROM tokens', /view tel does not make \(everything\)/],
    ['an index of its own', 'by_doc', 'CREATE INDEX by_doc ON docs(doc)', /index tel does not make \(by_doc\)/],
    ['a table of its own', 'extra', 'CREATE TABLE extra (x)', /table tel does not make \(extra\)/],
    [
      "a trigger named like SQLite's statistics (written into the schema), which would make the next account a reseller",
      'sqlite_stat_tel2',
      `PRAGMA writable_schema = ON;
       INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('trigger', 'sqlite_stat_tel2', 'accounts', 0,
         'CREATE TRIGGER sqlite_stat_tel2 AFTER INSERT ON accounts BEGIN UPDATE accounts SET reseller = 1 WHERE id = new.id; END');
       PRAGMA writable_schema = OFF;`,
      /trigger tel does not make \(sqlite_stat_tel2\)/,
    ],
    ['a view named like them', 'sqlite_stat1v', "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES ('view', 'sqlite_stat1v', 'sqlite_stat1v', 0, 'CREATE VIEW sqlite_stat1v AS SELECT 1'); PRAGMA writable_schema = OFF;", /view tel does not make \(sqlite_stat1v\)/],
    [
      "a tel index defined otherwise",
      'tokens_account',
      'DROP INDEX tokens_account; CREATE INDEX tokens_account ON tokens(account_id, modified)',
      /index tokens_account is not defined as tel defines it/,
    ],
    ['a tel index missing', 'tokens_modified', 'DROP INDEX tokens_modified', /lacks the index tokens_modified/],
    ['a schema change tel does not know', 'future', "INSERT INTO schema_migrations (id, applied_at) VALUES ('9999-future', 0)", /it was written by a newer tel/],
    ['a newer schema', 'newer', 'PRAGMA user_version = 9999', /it was written by a newer tel \(schema 9999, /],
  ])('refuses %s, and the database stays as it was', async (_what, name, sql, why) => {
    const file = tampered(name, sql);
    const r = await spawnTel(['restore', file, '--db', db]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toMatch(why);
    expect(triggers(db)).not.toContain('keep_tokens');
    onFile(db, (f) => expect(f.prepare("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = ?").get(name)).toEqual({ n: name.startsWith('tokens_') ? 1 : 0 }));
  }, 30_000);

  it("restores a backup with SQLite's own statistics tables (ANALYZE's sqlite_stat1 and sqlite_stat4)", async () => {
    const file = tampered('analyzed', 'ANALYZE');
    onFile(file, (f) => expect((f.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'").all() as { name: string }[]).map((r) => r.name)).toContain('sqlite_stat1'));
    const r = await spawnTel(['restore', file, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
  }, 30_000);

  it('restores a backup tel made, and a token revoked afterwards stays revoked', async () => {
    const made = JSON.parse((await spawnTel(['tokens', 'create', '--db', db, '--account', JSON.parse((await spawnTel(['accounts', 'list', '--db', db, '--json'])).stdout)[0].id, '--json'])).stdout);
    const backup = join(tmp.dir, 'with-token.db');
    expect((await spawnTel(['backup', backup, '--db', db])).code).toBe(0);
    const r = await spawnTel(['restore', backup, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect((await spawnTel(['tokens', 'revoke', made.token, '--db', db])).code).toBe(0);
    onFile(db, (f) => expect(f.prepare('SELECT COUNT(*) AS n FROM tokens').get()).toEqual({ n: 0 }));
  }, 30_000);
});

const HOSTILE = 'crm\u001b]0;PWNED\u0007\u001b[2J\u009b31m';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Row 6 of the hostile-tenant review: a name holding terminal escapes (as an older tel let a
 * tenant store, or a file from elsewhere holds) is shown escaped in every human-readable output.
 */
describe('names with terminal escapes in the outputs people read', () => {
  const tmp = tempDir('tel-hostile-names-');
  const db = join(tmp.dir, 'lab.db');
  let account = '';
  let hookId = '';
  let sink: TelProcess & { url: string };

  beforeAll(async () => {
    const init = await spawnTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw-admin-1']);
    expect(init.code, init.stderr).toBe(0);
    account = JSON.parse(init.stdout).account_id;
    sink = await startTelSink(db);
    const made = await spawnTel(['webhooks', 'create', '--db', db, '--account', account, '--name', 'crm', '--uri', `${sink.url}/crm`, '--hook', 'channel_create', '--format', 'json', '--json']);
    expect(made.code, made.stderr).toBe(0);
    hookId = JSON.parse(made.stdout).id;
    onFile(db, (f) => {
      const doc = JSON.parse((f.prepare('SELECT doc FROM webhooks WHERE id = ?').get(hookId) as { doc: string }).doc);
      f.prepare('UPDATE webhooks SET doc = ? WHERE id = ?').run(JSON.stringify({ ...doc, name: HOSTILE }), hookId);
      f.prepare('UPDATE accounts SET name = ? WHERE id = ?').run(`Lab${HOSTILE}`, account);
    });
    expect((await spawnTel(['simulate', 'call', '--db', db, '--account', account])).code).toBe(0);
    const serve = await startTelServe(db);
    try {
      await sink.until(() => sink.stdout.includes('/crm'), 'the delivery to reach the sink', 15_000);
      await until(() => {
        const f = new DatabaseSync(db, { readOnly: true, timeout: 5000 });
        try {
          return (f.prepare('SELECT COUNT(*) AS n FROM delivery_attempts').get() as { n: number }).n > 0;
        } finally {
          f.close();
        }
      }, 'the attempt to be recorded');
    } finally {
      await serve.stop();
    }
  }, 60_000);
  afterAll(async () => {
    await sink?.stop();
    tmp.cleanup();
  });

  it.each([
    ['tel webhooks list', ['webhooks', 'list']],
    ['tel webhooks attempts', ['webhooks', 'attempts']],
    ['tel watch --once', ['watch', '--once']],
    ['tel accounts list', ['accounts', 'list']],
  ])('%s shows the name escaped', async (_what, args) => {
    const r = await spawnTel([...args, '--db', db, '--account', account].filter((a, i, all) => !(args[0] === 'accounts' && (a === '--account' || all[i - 1] === '--account'))));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('crm\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m');
  }, 30_000);

  it("tel sink's lines show the hook's name escaped (and its --json too)", async () => {
    expect(sink.stdout).toContain('"hook_name":"crm\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m"');
    const human = startTel(['sink', '--db', db, '--port', '0']);
    try {
      const url = await human.until(() => /listening on (http:\/\/\S+),/.exec(human.stdout)?.[1], 'the sink to listen', 20_000);
      expect((await fetch(`${url}/crm`, { method: 'POST', headers: { 'X-Hook-ID': hookId }, body: '{}' })).status).toBe(200);
      await human.until(() => human.stdout.includes('/crm'), 'the request line');
      expect(human.stdout).not.toMatch(RAW);
      expect(human.stdout).toContain('hook crm\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m');
    } finally {
      await human.stop();
    }
  }, 30_000);

  const tmux = spawnSync('tmux', ['-V']).status === 0;
  it.skipIf(!tmux)('tel watch on a terminal (tmux) shows the name written out, and the screen is not cleared', async () => {
    const socket = join(tmp.dir, 'tmux.sock');
    const t = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    try {
      t('new-session', '-d', '-s', 'w', '-x', '160', '-y', '30', `${process.execPath} ${TEL_BIN} watch --db ${db}`);
      const pane = () => t('capture-pane', '-p', '-t', 'w');
      const shown = await until(() => pane().includes('channel_create') && pane(), `the attempt on screen\n${pane()}`, 25_000);
      expect(shown).toContain('crm\\u001b');
      expect(shown).toContain('tel watch');
      expect(t('display-message', '-p', '-t', 'w', '#{pane_title}')).not.toContain('PWNED');
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    }
  }, 40_000);
});
