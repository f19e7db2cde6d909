import { spawn, type ChildProcess } from 'node:child_process';
import { request as rawRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../helpers/cli.js';
import { httpRequest, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

describe('tel init, accounts, tokens and config on the database file', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  afterAll(() => tmp.cleanup());

  it('init prints the master account as JSON and refuses a second time with exit 1', async () => {
    const r = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['account_id', 'api_key', 'realm', 'user_id']);
    const again = await runTel(['--db', db, 'init', '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(/already initialised/);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('global options work before and after the subcommand', async () => {
    const before = await runTel(['--db', db, '--json', 'accounts', 'list']);
    const after = await runTel(['accounts', 'list', '--db', db, '--json']);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(JSON.parse(before.stdout)[0].name).toBe('Lab');
  });

  it('accounts create, show and delete', async () => {
    const master = JSON.parse((await runTel(['accounts', 'list', '--db', db, '--json'])).stdout)[0];
    const created = await runTel(['accounts', 'create', 'Customer', '--parent', master.id, '--db', db, '--json']);
    expect(created.code).toBe(0);
    const child = JSON.parse(created.stdout);
    const shown = await runTel(['accounts', 'show', master.id, '--db', db, '--json']);
    expect(JSON.parse(shown.stdout).children).toContain(child.id);
    const human = await runTel(['accounts', 'list', '--db', db]);
    expect(human.stdout).toMatch(/ID\s+NAME\s+REALM/);
    expect((await runTel(['accounts', 'delete', master.id, '--db', db])).code).toBe(1);
    expect((await runTel(['accounts', 'delete', child.id, '--db', db])).code).toBe(0);
    const gone = await runTel(['accounts', 'show', child.id, '--db', db]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^No account "[0-9a-f]{32}" \(ACCOUNT\) in .*: give an account's id, name or realm/);
  });

  it('usage errors exit 2; a missing database is one sentence and exit 1', async () => {
    const usage = await runTel(['accounts', 'create', 'X', '--db', db]);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toEqual(["Required option '--parent <account>' not specified (see --help)."]);
    expect((await runTel(['nonsense'])).code).toBe(2);
    const missing = await runTel(['accounts', 'list', '--db', join(tmp.dir, 'none.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No database at .*tel init/);
  });

  it('help teaches by example', async () => {
    const top = await runTel(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/Examples:/);
    for (const group of ['init', 'serve', 'accounts', 'tokens', 'config']) {
      const r = await runTel([group, '--help']);
      expect(r.stdout, group).toMatch(/Example/);
    }
  });

  it('config get shows the built-in settings of a category never set; --stored only what is stored', async () => {
    const r = await runTel(['config', 'get', 'webhooks', '--db', db]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).default).toMatchObject({ attempt_failure_count: 6, attempt_failure_expiry_ms: 60000, request_timeout_ms: 10000 });
    expect((await runTel(['config', 'get', 'crossbar.resources', 'job_recover_timeout_s', '--db', db])).stdout.trim()).toBe('21600');
    expect((await runTel(['config', 'get', 'webhooks', '--stored', '--db', db])).code).toBe(1);
    const list = await runTel(['config', 'get', '--db', db]);
    expect(list.stdout).toMatch(/built-in settings only: .*api\.resources.*webhooks/);
  });

  it('config set and get a key of the default node', async () => {
    expect((await runTel(['config', 'set', 'crossbar.auth', 'token_expiry_s', '600', '--db', db])).code).toBe(0);
    const v = await runTel(['config', 'get', 'crossbar.auth', 'token_expiry_s', '--db', db]);
    expect(v.stdout.trim()).toBe('600');
    const doc = await runTel(['config', 'get', 'crossbar.auth', '--db', db]);
    // the key set beside the category's defaults (Kazoo's crossbar.auth auth_modules among them)
    const read = JSON.parse(doc.stdout);
    expect(read).toMatchObject({ id: 'crossbar.auth', default: { token_expiry_s: 600, token_max_lifetime_s: 86400, login_max_failures: 10, login_failure_window_s: 300 } });
    expect(read.default.auth_modules.cb_user_auth).toMatchObject({ enabled: true });
  });
});

describe('the CLI beside a running server on the same file', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv.close());

  it('a token created offline works over HTTP, and revoking it offline takes effect at once', async () => {
    const created = await runTel(['tokens', 'create', '--account', srv.master.account_id, '--user', srv.master.user_id, '--db', srv.dbFile, '--json']);
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.stdout);
    const ok = await srv.request('GET', '/v2/token_auth', { token });
    expect(ok.status).toBe(200);
    expect(ok.body.data.method).toBe('cb_user_auth');
    const list = await runTel(['tokens', 'list', '--db', srv.dbFile, '--json']);
    // Listed by its SHA-256 only: the token itself is in neither the listing nor the file.
    const { createHash } = await import('node:crypto');
    const id = createHash('sha256').update(token).digest('hex');
    expect(JSON.parse(list.stdout).map((t: { id: string }) => t.id)).toContain(id);
    expect(list.stdout).not.toContain(token);
    expect((await runTel(['tokens', 'revoke', token, '--db', srv.dbFile])).code).toBe(0);
    expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(401);
    expect((await runTel(['tokens', 'revoke', token, '--db', srv.dbFile])).code).toBe(1);
  });

  it('a super-duper admin token cannot be given restrictions: they would be ignored', async () => {
    const r = await runTel(['tokens', 'create', '--account', srv.master.account_id, '--restrictions', '{"_":[{"rules":{"#":["GET"]}}]}', '--db', srv.dbFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/never restricted/);
  });

  it('a configuration change made offline is seen by the server', async () => {
    await runTel(['config', 'set', 'crossbar.auth', 'token_expiry_s', '1234', '--db', srv.dbFile]);
    const r = await srv.request('GET', '/v2/system_configs/crossbar.auth', { token: srv.adminToken });
    expect(r.body.data.default.token_expiry_s).toBe(1234);
  });

  it('accounts created offline and over HTTP at the same time are all kept', async () => {
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      work.push(runTel(['accounts', 'create', `Offline ${i}`, '--parent', srv.master.account_id, '--db', srv.dbFile]));
      work.push(srv.request('PUT', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken, data: { name: `Online ${i}` } }));
    }
    await Promise.all(work);
    const r = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/children?paginate=false`, { token: srv.adminToken });
    const names = r.body.data.map((a: { name: string }) => a.name);
    for (let i = 0; i < 10; i++) {
      expect(names).toContain(`Offline ${i}`);
      expect(names).toContain(`Online ${i}`);
    }
  });
});

describe('tel serve as a process', () => {
  it('initialises a new database, prints the credentials and a curl line, serves, and stops on SIGTERM', async () => {
    const tmp = tempDir();
    const db = join(tmp.dir, 'fresh.db');
    const child = spawn(process.execPath, [TEL_BIN, 'serve', '--db', db, '--port', '0']);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no URL printed: ${out} ${err}`)), 15_000);
        child.stdout.on('data', () => {
          const m = out.match(/listening on (http:\/\/\S+)/);
          if (m) {
            clearTimeout(t);
            resolve(m[1]);
          }
        });
      });
      expect(out).toMatch(/password\s+\S+/);
      const key = out.match(/api_key\s+([0-9a-f]{64})/)![1];
      expect(out).toContain(`curl -s -X PUT ${url}/v2/api_auth`);
      const login = await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: key } });
      expect(login.status).toBe(201);
      const code = await new Promise<number | null>((resolve) => {
        child.on('exit', (c) => resolve(c));
        child.kill('SIGTERM');
      });
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
      tmp.cleanup();
    }
  });

  it('on SIGINT in the middle of a request, finishes it, stores its change, then exits 0', async () => {
    const tmp = tempDir();
    const db = join(tmp.dir, 'busy.db');
    const init = await runTel(['init', '--db', db, '--account', 'Busy', '--username', 'admin', '--password', 'pw']);
    const { account_id: master, api_key: key } = JSON.parse(init.stdout);
    const child = spawn(process.execPath, [TEL_BIN, 'serve', '--db', db, '--port', '0']);
    try {
      const url = await listeningUrl(child);
      const token = (await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: key } })).body.auth_token as string;
      const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      const body = JSON.stringify({ data: { name: 'Sent During Shutdown' } });
      const answer = new Promise<{ status: number; name: string }>((resolve, reject) => {
        const u = new URL(url);
        const req = rawRequest(
          { host: u.hostname, port: u.port, method: 'PUT', path: `/v2/accounts/${master}`, headers: { 'X-Auth-Token': token, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, name: JSON.parse(text).data?.name }));
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 12));
        setTimeout(() => {
          child.kill('SIGINT');
          setTimeout(() => req.end(body.slice(12)), 300);
        }, 100);
      });
      expect(await answer).toEqual({ status: 201, name: 'Sent During Shutdown' });
      const answeredAt = Date.now();
      expect(await exited).toBe(0);
      // The client keeps its connection alive; the server must not wait for it to let go.
      expect(Date.now() - answeredAt).toBeLessThan(2500);
      const listed = await runTel(['accounts', 'list', '--db', db, '--json']);
      expect(JSON.parse(listed.stdout).map((a: { name: string }) => a.name)).toContain('Sent During Shutdown');
    } finally {
      child.kill('SIGKILL');
      tmp.cleanup();
    }
  });
});

/** The URL a spawned `tel serve` prints once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 15_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
}
