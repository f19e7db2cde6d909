import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../helpers/cli.js';
import { httpRequest, tempDir } from '../helpers/server.js';
import { startSink, type Sink } from '../helpers/sink.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/lab.yaml', import.meta.url));

interface Ephemeral {
  child: ChildProcess;
  /** every line printed, the URL first */
  lines: string[];
  stderr: string;
  exited: Promise<number | null>;
}

/** Starts `tel serve --ephemeral …` and resolves once it printed `lines` lines. */
function startEphemeral(args: string[], lines: number): Promise<Ephemeral> {
  const child = spawn(process.execPath, [TEL_BIN, 'serve', '--ephemeral', '--port', '0', ...args]);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  const started: Ephemeral = { child, lines: [], stderr: '', exited };
  child.stderr!.on('data', (d) => (started.stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tel serve --ephemeral printed: ${out} ${started.stderr}`)), 15_000);
    child.stdout!.on('data', (d) => {
      out += d;
      started.lines = out.split('\n').filter(Boolean);
      if (started.lines.length >= lines) {
        clearTimeout(timer);
        resolve(started);
      }
    });
    child.on('exit', () => reject(new Error(`tel serve --ephemeral exited: ${out} ${started.stderr}`)));
  });
}

const running: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) c.kill('SIGKILL');
  for (const c of cleanups.splice(0)) await c();
});

async function ephemeral(args: string[], lines = 2): Promise<Ephemeral> {
  const e = await startEphemeral(args, lines);
  running.push(e.child);
  return e;
}

describe('tel serve --ephemeral', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints the URL first and the master credentials as JSON, serves, and leaves no file behind on ${signal}`, async () => {
      const e = await ephemeral(['--json']);
      const url = e.lines[0];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const creds = JSON.parse(e.lines[1]);
      expect(creds).toMatchObject({ url, username: 'admin', account_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(existsSync(creds.db)).toBe(true);
      const login = await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: creds.api_key } });
      expect(login.status).toBe(201);
      e.child.kill(signal);
      expect(await e.exited).toBe(0);
      expect(existsSync(dirname(creds.db))).toBe(false);
    });
  }

  it('builds its database from a fixture: the lab file\'s users log in with their passwords', async () => {
    const e = await ephemeral(['--fixture', EXAMPLE, '--json']);
    const creds = JSON.parse(e.lines[1]);
    expect(creds).toMatchObject({ username: 'admin', password: 's3cret', api_key: 'lab-ci-key-0123456789abcdef0123456789abcdef' });
    const { createHash } = await import('node:crypto');
    const credentials = createHash('md5').update('alice:alice-pass').digest('hex');
    const login = await httpRequest(e.lines[0], 'PUT', '/v2/user_auth', { data: { credentials, account_name: 'Customer A' } });
    expect(login.status).toBe(201);
    e.child.kill('SIGTERM');
    expect(await e.exited).toBe(0);
    expect(existsSync(dirname(creds.db))).toBe(false);
  });

  it('refuses a fixture that does not validate before making anything (exit 2)', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const bad = join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, 'account:\n  realm: no-name.example\n');
    const child = spawn(process.execPath, [TEL_BIN, 'serve', '--ephemeral', '--fixture', bad, '--port', '0']);
    running.push(child);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(2);
    expect(err).toContain('account.name: an account needs a name');
  });
});

describe('tel apply beside a running server', () => {
  let sink: Sink;

  it("applies while tel serve runs on the file; the server's webhooks deliver the object events of what apply changed", async () => {
    sink = await startSink();
    cleanups.push(() => sink.close());
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    // the example, with its object hook pointing at a real local sink
    const lab = readFileSync(EXAMPLE, 'utf8').replace('http://127.0.0.1:9000/changes', `${sink.url}/changes`);
    const first = join(tmp.dir, 'lab.yaml');
    writeFileSync(first, lab);
    const e = await ephemeral(['--fixture', first, '--json']);
    const { db, api_key: apiKey } = JSON.parse(e.lines[1]);

    const second = join(tmp.dir, 'lab2.yaml');
    writeFileSync(second, lab.replace('        - username: bob\n', '        - username: dave\n          password: dave-pass\n          first_name: Dave\n          last_name: Doe\n        - username: bob\n'));
    const applied = await runTel(['apply', second, '--db', db]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('+ create user Lab/Customer A/dave');

    const [event] = await sink.waitFor(1, { timeoutMs: 5000, filter: (r) => r.path === '/changes' });
    const payload = JSON.parse(event.body);
    expect(payload).toMatchObject({ action: 'doc_created', type: 'user' });
    // the server answers what the CLI wrote
    const token = (await httpRequest(e.lines[0], 'PUT', '/v2/api_auth', { data: { api_key: apiKey } })).body.auth_token;
    const user = await httpRequest(e.lines[0], 'GET', `/v2/accounts/${payload.account_id}/users/${payload.id}`, { token });
    expect(user.body.data.username).toBe('dave');
    e.child.kill('SIGTERM');
    expect(await e.exited).toBe(0);
  });
});
