import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { runTel, spawnTel } from '../../test/helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from '../../test/helpers/server.js';
import { startSink } from '../../test/helpers/sink.js';

let srv: TestServer | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await srv?.close();
  srv = undefined;
  for (const c of cleanups.splice(0)) c();
});

function temp(): string {
  const t = tempDir('tel-backup-');
  cleanups.push(t.cleanup);
  return t.dir;
}

function rows(file: string, sql: string): unknown[] {
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('tel backup, restore and reset', () => {
  it('backs up while a server writes: every copy opens, passes PRAGMA integrity_check, and holds whole commits', async () => {
    srv = await startTestServer();
    const sink = await startSink();
    cleanups.push(() => void sink.close());
    const dir = temp();
    const master = srv.master.account_id;
    // an object hook: each device's doc_created delivery is written in the device's own commit
    const hook = await srv.request('PUT', `/v2/accounts/${master}/webhooks`, { token: srv.adminToken, data: { name: 'changes', uri: sink.url, hook: 'object', format: 'json' } });
    expect(hook.status).toBe(201);
    let writing = true;
    let written = 0;
    // four writers through the API for as long as the backups run
    const writers = Array.from({ length: 4 }, async (_, w) => {
      while (writing) {
        const r = await srv!.request('PUT', `/v2/accounts/${master}/devices`, { token: srv!.adminToken, data: { name: `d${w}-${written}`, sip: { pad: 'x'.repeat(2000) } } });
        expect(r.status).toBe(201);
        written++;
      }
    });
    const copies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const file = join(dir, `copy-${i}.db`);
      const r = await spawnTel(['backup', file, '--db', srv.dbFile]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Backed up .* \(\d+ pages, \d+ ms\)\.$/m);
      copies.push(file);
    }
    writing = false;
    await Promise.all(writers);
    expect(written).toBeGreaterThan(3);
    let previous = 0;
    for (const file of copies) {
      expect(rows(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // a copy holds whole commits: every device with its delivery, no delivery without its device
      const [{ n }] = rows(file, "SELECT count(*) AS n FROM docs WHERE kind = 'device'") as { n: number }[];
      const [{ d }] = rows(file, "SELECT count(*) AS d FROM outbox WHERE json_extract(payload, '$.type') = 'device'") as { d: number }[];
      const [{ missing }] = rows(
        file,
        "SELECT count(*) AS missing FROM docs WHERE kind = 'device' AND id NOT IN (SELECT json_extract(payload, '$.id') FROM outbox)",
      ) as { missing: number }[];
      expect([d, missing]).toEqual([n, 0]);
      expect(n).toBeGreaterThanOrEqual(previous);
      previous = n;
    }
    expect(previous).toBeLessThanOrEqual(written);
    const refused = await runTel(['backup', copies[0], '--db', srv.dbFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists: add --force to replace it.');
  });

  it('restore refuses while a server runs on the database, then puts a backup back', async () => {
    srv = await startTestServer();
    const dir = temp();
    const backup = join(dir, 'before.db');
    expect((await runTel(['backup', backup, '--db', srv.dbFile])).code).toBe(0);
    const created = await srv.request('PUT', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken, data: { name: 'After the backup' } });
    expect(created.status).toBe(201);
    const refused = await runTel(['restore', backup, '--db', srv.dbFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`A server runs on ${srv.dbFile}: stop it before tel restore.\n`);
    const masterId = srv.master.account_id;
    await srv.close();
    srv = undefined;
    const copy = join(dir, 'served.db');
    // the server's database was removed with it: restore into a new file, then onto an existing one
    expect((await runTel(['restore', backup, '--db', copy])).code).toBe(0);
    expect((rows(copy, 'SELECT name FROM accounts') as { name: string }[]).map((a) => a.name)).toEqual(['Master']);
    expect((await runTel(['accounts', 'create', 'Later', '--parent', masterId, '--db', copy])).code).toBe(0);
    const restored = await runTel(['restore', backup, '--db', copy]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^Restored .* from .*before\.db \(\d+ pages\)\.$/m);
    expect((rows(copy, 'SELECT name FROM accounts') as { name: string }[]).map((a) => a.name)).toEqual(['Master']);
    expect(rows(copy, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);

    const notTel = join(dir, 'plain.db');
    new DatabaseSync(notTel, { timeout: 5000 }).exec('CREATE TABLE t (x)');
    const wrong = await runTel(['restore', notTel, '--db', copy]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('it is an SQLite database, but not a tel one');
  });

  it('reset --yes empties the database back to a fresh init with the same master credentials', async () => {
    const dir = temp();
    const db = join(dir, 'lab.db');
    const init = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).stdout);
    expect((await runTel(['accounts', 'create', 'Customer A', '--parent', init.account_id, '--db', db])).code).toBe(0);
    expect((await runTel(['config', 'set', 'crossbar.auth', 'token_expiry_s', '600', '--db', db])).code).toBe(0);

    const usage = await runTel(['reset', '--db', db]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('add --yes');

    const reset = await runTel(['reset', '--yes', '--db', db]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`kept the master account Lab (${init.account_id}) and its admin users admin`);
    expect((rows(db, 'SELECT id, name FROM accounts') as { id: string; name: string }[])).toEqual([{ id: init.account_id, name: 'Lab' }]);
    expect(rows(db, 'SELECT * FROM system_configs')).toEqual([]);
    // the rows a new database starts with are back (the webhooks app)
    expect(rows(db, 'SELECT name FROM apps')).toEqual([{ name: 'webhooks' }]);

    // the same credentials work against a server on the reset file
    const { startApi } = await import('../http/app.js');
    const { openCore, closeCore } = await import('../core.js');
    const core = openCore(db);
    const api = await startApi(core, '127.0.0.1', 0);
    try {
      const byKey = await fetch(`${api.url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: init.api_key } }) });
      expect(byKey.status).toBe(201);
      const { createHash } = await import('node:crypto');
      const credentials = createHash('md5').update('admin:s3cret').digest('hex');
      const byPassword = await fetch(`${api.url}/v2/user_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { credentials, account_name: 'Lab' } }) });
      expect(byPassword.status).toBe(201);
      const serving = await runTel(['reset', '--yes', '--db', db]);
      expect(serving.code).toBe(1);
      expect(serving.stderr).toContain('stop it before tel reset');
    } finally {
      await api.close();
      closeCore(core);
    }
  });

  it('a backup carries the login key beside it (FILE.key, owner-only); a copy without it logs nobody in by password, and restore says so', async () => {
    const dir = temp();
    const db = join(dir, 'lab.db');
    const init = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).stdout);
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    const backup = join(dir, 'monday.db');
    expect((await runTel(['backup', backup, '--db', db])).code).toBe(0);
    expect(statSync(`${backup}.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${backup}.key`, 'utf8')).toBe(readFileSync(`${db}.key`, 'utf8'));

    // the database file alone, as a thief or a careless copy would have it
    const alone = join(dir, 'alone.db');
    copyFileSync(backup, alone);
    const target = join(dir, 'elsewhere.db');
    const restoredAlone = await runTel(['restore', alone, '--db', target]);
    expect(restoredAlone.code, restoredAlone.stderr).toBe(0);
    expect(restoredAlone.stderr).toMatch(/^Note: 1 user's password was set with a login key .*elsewhere\.db\.key does not hold/);
    const logins = async () => {
      const { startApi } = await import('../http/app.js');
      const { openCore, closeCore } = await import('../core.js');
      const core = openCore(target);
      const api = await startApi(core, '127.0.0.1', 0);
      try {
        const put = (path: string, data: unknown) => fetch(`${api.url}${path}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data }) }).then((r) => r.status);
        const credentials = createHash('md5').update('admin:s3cret').digest('hex');
        return { password: await put('/v2/user_auth', { credentials, account_name: 'Lab' }), apiKey: await put('/v2/api_auth', { api_key: init.api_key }) };
      } finally {
        await api.close();
        closeCore(core);
      }
    };
    expect(await logins()).toEqual({ password: 401, apiKey: 201 });

    // with its key, the same file logs the admin in again
    const restored = await runTel(['restore', backup, '--db', target]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toBe('');
    expect(readFileSync(`${target}.key`, 'utf8')).toBe(readFileSync(`${db}.key`, 'utf8'));
    expect(await logins()).toEqual({ password: 201, apiKey: 201 });
  });
});
