import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

// dist/tel is built once from the project's Node binary and run where no `node` exists
// on PATH, as on a machine without Node installed.
const root = fileURLToPath(new URL('..', import.meta.url));
const exe = join(root, 'dist', 'tel');
const nodeBinary = join(root, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
const unavailable = !existsSync(nodeBinary)
  ? `the project's Node binary (node-${process.platform}-${process.arch}) is not installed`
  : !existsSync(join(root, 'node_modules', 'postject', 'package.json'))
    ? 'postject is not installed'
    : null;
if (unavailable) console.warn(`skipping the single executable tests: ${unavailable}.`);
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
/** Where a C compiler is, the executable carries dist/memory.node (scripts/build.mjs). */
const hasCompiler = process.platform === 'linux' && spawnSync(process.env.CC || 'cc', ['--version']).status === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(unavailable !== null)('dist/tel, the single executable', () => {
  let dir = '';
  let env: Record<string, string> = {};

  /** Runs dist/tel to completion with no Node on PATH. */
  function tel(args: string[]): Run {
    const r = spawnSync(exe, args, { cwd: dir, env, encoding: 'utf8', timeout: 20_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** A fresh initialised database; answers its file and the `init` JSON. */
  function initDb(name: string): { db: string; init: { account_id: string; api_key: string } } {
    const db = join(dir, name);
    const r = tel(['init', '--db', db, '--account', 'A', '--username', 'u', '--password', 'p']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return { db, init: JSON.parse(r.stdout) };
  }

  beforeAll(() => {
    // Spawned here rather than in the describe body: vitest runs describe bodies even when skipped.
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'pipe' });
    dir = mkdtempSync(join(tmpdir(), 'tel-binary-'));
    env = { PATH: join(dir, 'no-bin-here'), HOME: dir };
    expect(spawnSync('node', ['--version'], { env }).error).toBeDefined(); // no node reachable
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('--help exits 0 and lists the commands', () => {
    const r = tel(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['init', 'serve', 'accounts', 'tokens', 'config']) expect(r.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    expect(r.stderr).toBe('');
  });

  test('init prints the master account as JSON', () => {
    const { init } = initDb('init.db');
    expect(init.account_id).toMatch(/^[0-9a-f]{32}$/);
    expect(init.api_key).toMatch(/^[0-9a-f]+$/);
  });

  test('a usage error exits 2', () => {
    const r = tel(['init', '--db', join(dir, 'usage.db'), '--no-such-option']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe('');
  });

  test('serve answers api_auth with 201, runs a number job on its job thread, and stops cleanly on SIGTERM', async () => {
    const { db, init } = initDb('serve.db');
    const child = spawn(exe, ['serve', '--db', db, '--port', '0'], { cwd: dir, env });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no base URL within 15 s; stdout: ${stdout} stderr: ${stderr}`)), 15_000);
        child.stdout.on('data', (d) => {
          stdout += d;
          const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        void exited.then(({ code }) => reject(new Error(`tel serve exited (${code}): ${stderr}`)));
      });

      const res = await fetch(`${base}/v2/api_auth`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { api_key: init.api_key } }),
      });
      const body = (await res.json()) as { auth_token?: string; data?: { account_id?: string } };
      expect(res.status).toBe(201);
      expect(body.auth_token).toBeTruthy();
      expect(body.data?.account_id).toBe(init.account_id);

      // the job thread loads the executable's tel.mjs asset (the start runs the same code split in chunks)
      const api = async (method: string, path: string, data: unknown) => {
        const r = await fetch(`${base}/v2/accounts/${init.account_id}${path}`, {
          method,
          headers: { 'Content-Type': 'application/json', 'X-Auth-Token': body.auth_token! },
          body: data === undefined ? undefined : JSON.stringify({ data }),
        });
        return (await r.json()) as { data: { id: string; status: string } };
      };
      const resource = await api('PUT', '/resources', { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] });
      const numbers = Array.from({ length: 300 }, (_, i) => `+1415${String(5_550_000 + i).padStart(7, '0')}`);
      const job = await api('PUT', '/resources/jobs', { numbers, resource_id: resource.data.id });
      let status = job.data.status;
      for (let i = 0; i < 300 && status !== 'complete' && status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await api('GET', `/resources/jobs/${job.data.id}`, undefined)).data.status;
      }
      expect(status).toBe('complete');
      expect(stderr).not.toMatch(/job thread failed/);

      // after a large body, the server collects and trims glibc's heaps with the addon it carries
      if (hasCompiler) {
        const large = await fetch(`${base}/v2/accounts/${init.account_id}/devices`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', 'X-Auth-Token': body.auth_token! },
          body: JSON.stringify({ data: { name: 'x'.repeat(2 * 1024 * 1024) } }),
        });
        expect(large.status).toBe(400);
        let trims = 0;
        for (let i = 0; i < 100 && trims === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          trims = Number(/^tel_memory_trims_total (\d+)/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0);
        }
        expect(trims).toBeGreaterThan(0);
        // and with the trim, its executable's code left its resident set: what it runs comes back
        const again = await fetch(`${base}/v2/accounts/${init.account_id}`, { headers: { 'X-Auth-Token': body.auth_token! } });
        expect(again.status).toBe(200);
        expect(((await again.json()) as { data: { id: string } }).data.id).toBe(init.account_id);
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  test.skipIf(!hasTmux)('tel watch draws its screen in a pseudo-terminal, switches panes and quits on q', async () => {
    const { db } = initDb('watch.db');
    const socket = join(dir, 'tmux.sock');
    const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-t', 'w');
    const until = async (what: string, ok: () => boolean) => {
      // Generous: the first draw waits for the executable and Ink to start on a busy box.
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ok(), `${what}\n${screen()}`).toBe(true);
    };
    // `env -i` so that the executable runs with no node reachable, as above.
    tmux('new-session', '-d', '-s', 'w', '-x', '100', '-y', '20', `/usr/bin/env -i PATH=${env.PATH} HOME=${dir} TERM=xterm '${exe}' watch --db '${db}'; echo EXIT=$?; sleep 30`);
    try {
      await until('the attempts pane', () => /tel watch .*Attempts[\s\S]*No webhook attempts yet/.test(screen()));
      tmux('send-keys', '-t', 'w', '2');
      await until('the jobs pane', () => /No number jobs yet/.test(screen()));
      tmux('send-keys', '-t', 'w', 'q');
      await until('tel watch to exit with 0', () => /EXIT=0/.test(screen()));
      expect(screen()).not.toMatch(/tel watch/); // the alternate screen is left
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    }
  }, 90_000);
});
