// A `tel serve` of a checkout (lib/checkout.mjs) on a fresh database, for benchmarks that compare
// commits by what the server spends: its CPU seconds (all threads, from /proc) and its memory.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { telCommand } from './checkout.mjs';
import { pin, pinned } from './http.mjs';

const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;

/** CPU seconds `pid` spent so far, all its threads (ended ones included). */
export function cpuSecondsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}

/** The resident memory of `pid` now and at its peak (MiB). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss_mib: kb('VmRSS') / 1024, peak_mib: kb('VmHWM') / 1024 };
}

export const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};

const md5 = (s) => createHash('md5').update(s).digest('hex');

/** A JSON request answered 2xx; answers the parsed body. */
export async function call(url, method, path, { token, data } = {}) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
    body: data === undefined ? undefined : JSON.stringify({ data }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/**
 * The URL a starting `tel serve` (its stdout and stderr piped) says it listens on, within 120 s;
 * `stderr()` answers what it has written there so far.
 */
export async function listeningUrl(child, label) {
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    const t = setTimeout(() => reject(new Error(`${label}: no URL within 120 s: ${text}${err}`)), 120_000);
    child.stdout.on('data', (d) => {
      text += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (m) { clearTimeout(t); resolve(m[0]); }
    });
    child.once('exit', (code) => { clearTimeout(t); reject(new Error(`${label}: tel serve exited (${code}): ${err.slice(-500)}`)); });
  });
  child.stdout.resume();
  return { url, stderr: () => err };
}

/**
 * `tel init` then `tel serve --port 0` of `checkout` on `db`, pinned to CPU 0 when `pin` is set,
 * with extra Node flags (`--cpu-prof …`) and environment. Answers {child, pid, url, token,
 * accountId} once the admin is logged in; the caller kills `child`.
 */
export async function serveCheckout(checkout, db, { pinCpu = pinned, nodeFlags = [], env = {} } = {}) {
  const cmd = telCommand(checkout.dir);
  const runEnv = { ...process.env, ...cmd.env, ...env };
  const password = 'bench-pw';
  const out = execFileSync(cmd.node, [...cmd.args, '--db', db, 'init', '--account', 'acme', '--username', 'admin', '--password', password], {
    env: runEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  });
  const creds = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1));
  let argv = [cmd.node, ...nodeFlags, ...cmd.args, '--db', db, 'serve', '--host', '127.0.0.1', '--port', '0'];
  if (pinCpu) argv = ['taskset', '-c', '0', ...argv];
  const child = spawn(argv[0], argv.slice(1), { env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const { url, stderr } = await listeningUrl(child, checkout.label);
  if (pinCpu) pin(0, child.pid);
  const login = await call(url, 'PUT', '/v2/user_auth', { data: { credentials: md5(`admin:${password}`), account_name: 'acme' } });
  return { child, pid: child.pid, url, token: login.auth_token, accountId: creds.account_id, stderr };
}

/**
 * Sends `n` GETs of `path` over `connections` keep-alive sockets, one request in flight on each,
 * with a client that does little else than write the request's bytes and find each answer's end
 * (Content-Length framing): cheap enough that a server pinned to one core is the bound, as it is
 * under autocannon. Resolves with the status codes counted.
 */
export function hammer(url, path, headers, n, connections) {
  const { hostname, port } = new URL(url);
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${head}\r\n`);
  const statuses = {};
  let sent = 0;
  let answered = 0;
  return new Promise((resolve, reject) => {
    const open = (socket) => {
      let pending = Buffer.alloc(0);
      const next = () => {
        if (sent >= n) return socket.end();
        sent++;
        socket.write(request);
      };
      socket.on('data', (chunk) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (;;) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) return;
          const text = pending.toString('latin1', 0, end);
          const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? NaN);
          if (!(length >= 0)) return reject(new Error(`an answer without Content-Length: ${text.slice(0, 200)}`));
          if (pending.length < end + 4 + length) return;
          const status = text.slice(9, 12);
          statuses[status] = (statuses[status] ?? 0) + 1;
          pending = pending.subarray(end + 4 + length);
          if (++answered === n) resolve(statuses);
          next();
        }
      });
      socket.on('error', reject);
      next();
    };
    for (let i = 0; i < Math.min(connections, n); i++) {
      const socket = net.connect(Number(port), hostname, () => open(socket));
      socket.setNoDelay(true);
    }
  });
}

/**
 * Copies each server's V8 CPU profiles (`--cpu-prof-dir=server.profDir`) into `dir`, named after
 * its checkout's label, before a benchmark's work directory is removed.
 */
export function keepProfiles(servers, dir, log = () => {}) {
  mkdirSync(dir, { recursive: true });
  for (const s of servers) {
    const files = existsSync(s.profDir) ? readdirSync(s.profDir).filter((f) => f.endsWith('.cpuprofile')) : [];
    for (const [i, f] of files.entries()) {
      const to = join(dir, `${s.checkout.label.replace(/[^\w.-]+/g, '_')}${i ? `-${i}` : ''}.cpuprofile`);
      copyFileSync(join(s.profDir, f), to);
      log(`profile: ${to}`);
    }
  }
}
