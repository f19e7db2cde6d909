import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN, type CliRun } from '../helpers/cli.js';
import { ROOT } from '../helpers/doc-examples.js';
import { tempDir } from '../helpers/server.js';
import { installed } from '../helpers/tel-on-path.js';

/** Runs the real `tel` under a permissive umask, which must not matter. */
function telUnderUmask(args: string[], umask = '000'): ChildProcess {
  const quoted = [process.execPath, TEL_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return spawn('/bin/sh', ['-c', `umask ${umask} && exec ${quoted}`]);
}

function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** Permission bits of every file in `dir`, by name. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = (statSync(join(dir, name)).mode & 0o777).toString(8);
  return out;
}

describe('the database file and the files beside it are owner-only', () => {
  const dirs: (() => void)[] = [];
  let server: ChildProcess | undefined;
  afterEach(() => {
    server?.kill('SIGKILL');
    server = undefined;
    for (const cleanup of dirs.splice(0)) cleanup();
  });
  const fresh = () => {
    const tmp = tempDir('tel-modes-');
    dirs.push(tmp.cleanup);
    return { dir: tmp.dir, db: join(tmp.dir, 'tel.db') };
  };

  it('tel init creates tel.db and its login key 0600 under umask 000', async () => {
    const { dir, db } = fresh();
    const r = await finished(telUnderUmask(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']));
    expect(r.code).toBe(0);
    expect(modes(dir)).toEqual({ 'tel.db': '600', 'tel.db.key': '600' });
  });

  it('tel serve on a new file keeps tel.db, -wal and -shm 0600 while it serves', async () => {
    const { dir, db } = fresh();
    server = telUnderUmask(['serve', '--db', db, '--port', '0']);
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      server!.stdout!.on('data', (d) => {
        out += d;
        const m = out.match(/listening on (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      server!.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const key = out.match(/api_key\s+(\S+)/)![1];
    const login = await fetch(`${url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: key } }) });
    expect(login.status).toBe(201);
    expect(modes(dir)).toEqual({ 'tel.db': '600', 'tel.db-shm': '600', 'tel.db-wal': '600', 'tel.db.key': '600' });
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.on('close', resolve));
    server = undefined;
    for (const mode of Object.values(modes(dir))) expect(mode).toBe('600');
  });

  it("the CLI's first write creates its -wal and -shm 0600, and tightens a file left readable", async () => {
    const { dir, db } = fresh();
    const init = await finished(telUnderUmask(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']));
    const master = JSON.parse(init.stdout).account_id as string;
    chmodSync(db, 0o644);
    // Another reader keeps the write-ahead files in place after the CLI exits; they start out as
    // loose as the file it opened.
    const reader = new DatabaseSync(db, { timeout: 5000 });
    reader.prepare('SELECT count(*) FROM accounts').get();
    try {
      expect(existsSync(`${db}-wal`)).toBe(true);
      expect(modes(dir)['tel.db-shm']).toBe('644');
      const r = await finished(telUnderUmask(['accounts', 'create', 'Customer', '--parent', master, '--db', db, '--json']));
      expect(r.code).toBe(0);
      expect(modes(dir)).toEqual({ 'tel.db': '600', 'tel.db-shm': '600', 'tel.db-wal': '600', 'tel.db.key': '600' });
    } finally {
      reader.close();
    }
  });

  it('a file created with the first write of a new database is 0600 (in-process open)', async () => {
    const { dir, db } = fresh();
    const { openDb } = await import('../../src/store/db.js');
    const conn = openDb(db);
    try {
      conn.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
      expect(modes(dir)).toEqual({ 'tel.db': '600', 'tel.db-shm': '600', 'tel.db-wal': '600' });
    } finally {
      conn.close();
    }
  });
});

describe("the repository's .gitignore", () => {
  it('keeps every file tel writes beside a database (its login key, a backup and its key) out of git status', async (ctx) => {
    if (!installed('git')) ctx.skip('git is not installed here: the check was not run');
    const tmp = tempDir('tel-gitignore-');
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: tmp.dir, encoding: 'utf8' });
      git('init', '-q');
      copyFileSync(join(ROOT, '.gitignore'), join(tmp.dir, '.gitignore'));
      const db = join(tmp.dir, 'tel.db');
      expect((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).code).toBe(0);
      expect((await runTel(['backup', join(tmp.dir, 'lab-monday.db'), '--db', db])).code).toBe(0);
      expect(readdirSync(tmp.dir).sort()).toEqual(['.git', '.gitignore', 'lab-monday.db', 'lab-monday.db.key', 'tel.db', 'tel.db.key']);
      expect(git('status', '--porcelain', '--untracked-files=all')).toBe('?? .gitignore\n');
    } finally {
      tmp.cleanup();
    }
  });
});
