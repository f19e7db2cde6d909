// Latency under mixed load: 16 clients for 60 s doing what a lab does — users with passwords
// created, changed and removed, logins (right and wrong), webhooks and resources created, read,
// changed and removed, accounts read, simulated calls fired (delivered to a sink) — while the CLI
// writes to the same file every second. Reports p50/p99/max overall and per operation, and the
// server's event-loop delay from its own GET /metrics (the run's share: the difference of two
// scrapes). With --pin (and taskset), tel runs on the first CPU and everything else on the second.
// Target: p99 at most 50 ms.
//
// --rate R offers R operations a second in all (each client's due one interval apart, timed from when
// due); without it each client sends its next operation as soon as the last is answered, so the
// machine is saturated and a class of slow operations (password hashes) sets the tail.
//
//   npx node scripts/bench/mixed.mjs [--seconds 60] [--clients 16] [--rate 0] [--users 200] [--seed 1] [--pin]
import { execFile, execFileSync, fork, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, memoryMb, runMain, startProcess, stopAll } from './lib/http.mjs';
import { prng } from '../fuzz/hostile.mjs';

const TARGET_P99_MS = 50;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    clients: { type: 'string', default: '16' },
    users: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    pin: { type: 'boolean', default: false },
    rate: { type: 'string', default: '0' },
  },
});
const seconds = Number(opts.seconds);
const clients = Number(opts.clients);
const usersPerAccount = Number(opts.users);
/** operations a second offered by all clients together (0: each client sends its next as soon as the last is answered) */
const rate = Number(opts.rate);
const ACCOUNTS = 4;

// as the figure was taken: tel and the load share the machine (--pin: tel on the first CPU)
const pinned = opts.pin && cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pin = (cpu, pid) => pinned && spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });

const md5 = (s) => createHash('md5').update(s).digest('hex');
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round = (v, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/** Prometheus text's samples by `name{labels}`. */
function samples(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = /^([^#\s][^\s]*) (\S+)$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-mixed-'));
  try {
    pin(1, process.pid);
    const sinkFile = join(dir, 'sink.cjs');
    writeFileSync(
      sinkFile,
      `const { createServer } = require('node:http');
       const s = createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
       s.keepAliveTimeout = 60000;
       s.listen(0, '127.0.0.1', () => process.send({ port: s.address().port }));`,
    );
    const sink = fork(sinkFile, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    pin(1, sink.pid);
    const { port: sinkPort } = await new Promise((r) => sink.once('message', r));

    const db = join(dir, 'mixed.db');
    const tel = (args) => execFileSync(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', '--db', db, ...args], { cwd: root, encoding: 'utf8' });
    const init = JSON.parse(tel(['init', '--account', 'Mixed', '--username', 'admin', '--password', 'mixed-pass']));
    // wrong passwords are part of the mix: the throttle would otherwise answer them 429 after ten
    tel(['config', 'set', 'crossbar.auth', 'login_max_failures', '1000000']);
    const server = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    pin(0, server.child.pid);
    const pool = new Pool(server.url, { connections: clients + 2, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
    const call = async (method, path, { token, data } = {}) => {
      const headers = { 'content-type': 'application/json' };
      if (token) headers['x-auth-token'] = token;
      const res = await pool.request({ method, path, headers, body: data === undefined ? undefined : JSON.stringify({ data }) });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    const admin = (await call('PUT', '/v2/api_auth', { data: { api_key: init.api_key } })).body.auth_token;

    // the lab: accounts with users (passwords), a call hook and an object hook each, a resource
    console.log(`setting up: ${ACCOUNTS} accounts of ${usersPerAccount} users…`);
    const accounts = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const id = (await call('PUT', `/v2/accounts/${init.account_id}`, { token: admin, data: { name: `Customer ${a}` } })).body.data.id;
      const users = [];
      for (let u = 0; u < usersPerAccount; u += 8) {
        const made = await Promise.all(
          Array.from({ length: Math.min(8, usersPerAccount - u) }, (_, k) =>
            call('PUT', `/v2/accounts/${id}/users`, { token: admin, data: { first_name: 'Lab', last_name: 'User', username: `user${u + k}`, password: `pw-${u + k}` } }),
          ),
        );
        for (const r of made) users.push({ id: r.body.data.id, username: r.body.data.username, password: `pw-${r.body.data.username.slice(4)}` });
      }
      for (const hook of ['channel_create', 'object']) {
        await call('PUT', `/v2/accounts/${id}/webhooks`, { token: admin, data: { name: hook, uri: `http://127.0.0.1:${sinkPort}/${hook}`, hook, format: 'json' } });
      }
      accounts.push({ id, name: `Customer ${a}`, users });
    }

    const ops = new Map();
    const record = (name, ms, ok) => {
      let o = ops.get(name);
      if (!o) ops.set(name, (o = { lat: [], errors: 0 }));
      o.lat.push(ms);
      if (!ok) o.errors++;
    };
    /** One client: its own account, users it made, hooks and resources it made. */
    async function client(n, until) {
      // an operation's time counts from when it was due (with --rate, an operation held up by the
      // one before it counts the wait: no coordinated omission)
      let due = performance.now();
      const timed = async (name, fn, okStatus) => {
        const r = await fn();
        record(name, performance.now() - due, okStatus.includes(r.status));
        return r;
      };
      // the same mix of operations every run
      const random = prng(Number(opts.seed) * 1000 + n).next;
      const acct = accounts[n % ACCOUNTS];
      const mine = { users: [], hooks: [], resources: [] };
      const pick = (list) => list[Math.floor(random() * list.length)];
      const t = admin;
      const base = `/v2/accounts/${acct.id}`;
      let made = 0;
      const table = [
        [25, () => timed('get_account', () => call('GET', base, { token: t }), [200])],
        [4, () => timed('list_users', () => call('GET', `${base}/users?page_size=50`, { token: t }), [200])],
        [10, () => { const u = pick(acct.users); return timed('login', () => call('PUT', '/v2/user_auth', { data: { credentials: md5(`${u.username}:${u.password}`), account_name: acct.name } }), [201]); }],
        [3, () => timed('failed_login', () => call('PUT', '/v2/user_auth', { data: { credentials: md5(`user1:wrong-${random()}`), account_name: acct.name } }), [401])],
        [6, async () => {
          const r = await timed('create_user', () => call('PUT', `${base}/users`, { token: t, data: { first_name: 'Lab', last_name: 'User', username: `c${n}-${made++}`, password: `pw-c${n}-${made}` } }), [201]);
          if (r.status === 201) mine.users.push(r.body.data.id);
        }],
        [6, () => mine.users.length && timed('update_user', () => call('PATCH', `${base}/users/${pick(mine.users)}`, { token: t, data: { first_name: `F${made++}` } }), [200])],
        [3, () => mine.users.length && timed('change_password', () => call('PATCH', `${base}/users/${pick(mine.users)}`, { token: t, data: { password: `pw-new-${made++}` } }), [200])],
        [3, () => mine.users.length > 5 && timed('delete_user', () => call('DELETE', `${base}/users/${mine.users.shift()}`, { token: t }), [200])],
        // hooks of a type no call fires (a CRUD's hooks do not multiply every call's deliveries)
        [3, async () => {
          const r = await timed('create_webhook', () => call('PUT', `${base}/webhooks`, { token: t, data: { name: `h${n}-${made++}`, uri: `http://127.0.0.1:${sinkPort}/h`, hook: 'parking', format: 'json' } }), [201]);
          if (r.status === 201) mine.hooks.push(r.body.data.id);
        }],
        [4, () => mine.hooks.length && timed('get_webhook', () => call('GET', `${base}/webhooks/${pick(mine.hooks)}`, { token: t }), [200])],
        [3, () => mine.hooks.length && timed('update_webhook', () => call('PATCH', `${base}/webhooks/${pick(mine.hooks)}`, { token: t, data: { retries: 1 + (made++ % 4) } }), [200])],
        [3, () => mine.hooks.length > 3 && timed('delete_webhook', () => call('DELETE', `${base}/webhooks/${mine.hooks.shift()}`, { token: t }), [200])],
        [3, async () => {
          const r = await timed('create_resource', () => call('PUT', `${base}/resources`, { token: t, data: { name: `r${n}-${made++}`, gateways: [{ server: 'sip.example.net' }] } }), [201]);
          if (r.status === 201) mine.resources.push(r.body.data.id);
        }],
        [4, () => mine.resources.length && timed('get_resource', () => call('GET', `${base}/resources/${pick(mine.resources)}`, { token: t }), [200])],
        [3, () => mine.resources.length && timed('update_resource', () => call('PATCH', `${base}/resources/${pick(mine.resources)}`, { token: t, data: { weight_cost: made++ % 100 } }), [200])],
        [3, () => mine.resources.length > 3 && timed('delete_resource', () => call('DELETE', `${base}/resources/${mine.resources.shift()}`, { token: t }), [200])],
        [12, () => timed('simulate_call', () => call('PUT', `${base}/simulations`, { token: t, data: { kind: 'call' } }), [201])],
      ];
      const total = table.reduce((s, [w]) => s + w, 0);
      const interval = rate > 0 ? (clients * 1000) / rate : 0;
      if (interval > 0) due += random() * interval;
      while (performance.now() < until) {
        if (interval > 0) {
          if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        } else due = performance.now();
        let x = random() * total;
        const [, op] = table.find(([w]) => (x -= w) < 0) ?? table[0];
        await op();
        due += interval;
      }
    }

    /** The CLI beside the server: one write a second, in its own process. */
    let cliWrites = 0;
    let cliFailures = 0;
    const cliLoop = async (until) => {
      for (let i = 0; performance.now() < until; i++) {
        const started = performance.now();
        const args = i % 2 === 0 ? ['config', 'set', 'webhooks', 'retry_base_delay_ms', String(500 + (i % 10))] : ['accounts', 'create', `cli-${i}`, '--parent', init.account_id];
        await new Promise((done) => {
          const child = execFile(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', '--db', db, ...args], { cwd: root }, (err) => {
            if (err) cliFailures++;
            else cliWrites++;
            done();
          });
          pin(1, child.pid);
        });
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - started))));
      }
    };

    // a short warm-up (V8 compiles hot code at the server's first thousands of requests), then the run
    console.log(`warming up 5 s, then ${clients} clients for ${seconds} s…`);
    await Promise.all(Array.from({ length: clients }, (_, n) => client(100 + n, performance.now() + 5000)));
    ops.clear();
    const before = samples(await (await fetch(`${server.url}/metrics`)).text());
    const cpuBefore = before.get('process_cpu_seconds_total') ?? 0;
    const until = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all([...Array.from({ length: clients }, (_, n) => client(n, until)), cliLoop(until)]);
    const elapsed = (performance.now() - started) / 1000;
    const after = samples(await (await fetch(`${server.url}/metrics`)).text());
    const rss = memoryMb(server.child.pid);
    await pool.close();

    const all = [...ops.values()].flatMap((o) => o.lat).sort((a, b) => a - b);
    const perOp = Object.fromEntries(
      [...ops].sort(([a], [b]) => a.localeCompare(b)).map(([name, o]) => {
        const s = o.lat.sort((a, b) => a - b);
        return [name, { n: s.length, p50_ms: round(pct(s, 50)), p99_ms: round(pct(s, 99)), max_ms: round(s.at(-1)), errors: o.errors }];
      }),
    );
    const delta = (k) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    const buckets = [...after.keys()].filter((k) => k.startsWith('tel_event_loop_delay_histogram_seconds_bucket'));
    const loopCount = delta('tel_event_loop_delay_histogram_seconds_count');
    // bounds in order (an object would put "1" and "2" before "0.001"); le in seconds
    const loopHistogram = buckets.map((k) => [/le="([^"]+)"/.exec(k)[1], delta(k)]).sort(([a], [b]) => Number(a) - Number(b));
    const loopQuantile = (q) => loopHistogram.find(([, n]) => n >= q * loopCount)?.[0] ?? '+Inf';
    const errors = Object.values(perOp).reduce((s, o) => s + o.errors, 0);
    const p99 = pct(all, 99);
    const result = {
      bench: 'mixed',
      ok: errors === 0 && cliFailures === 0,
      seconds: round(elapsed, 1),
      clients,
      offered_per_s: rate || 'as fast as answered',
      pinning: pinned ? 'server CPU 0, clients, sink and CLI CPU 1' : 'none',
      ops: all.length,
      ops_per_s: round(all.length / elapsed, 0),
      p50_ms: round(pct(all, 50)),
      p99_ms: round(p99),
      max_ms: round(all.at(-1)),
      target_p99_ms: TARGET_P99_MS,
      target_met: p99 <= TARGET_P99_MS,
      errors,
      cli_writes: cliWrites,
      cli_failures: cliFailures,
      deliveries: delta('tel_delivery_tries_total{kind="webhook",outcome="delivered"}'),
      password_hashes: delta('tel_password_hashes_total'),
      loop_delay: { samples: loopCount, p50_le_s: loopQuantile(0.5), p99_le_s: loopQuantile(0.99), max_s_since_start: after.get('tel_event_loop_delay_max_seconds'), buckets: Object.fromEntries(loopHistogram.map(([le, n]) => [`le ${le}`, n])) },
      server_rss_mb: round(rss.rss, 0),
      server_cpu_cores: round(((after.get('process_cpu_seconds_total') ?? 0) - cpuBefore) / elapsed),
      per_op: perOp,
    };
    console.log(['operation           n      p50 ms   p99 ms   max ms  errors', ...Object.entries(perOp).map(([k, o]) => `${k.padEnd(18)}${String(o.n).padStart(6)}${String(o.p50_ms).padStart(10)}${String(o.p99_ms).padStart(9)}${String(o.max_ms).padStart(9)}${String(o.errors).padStart(8)}`)].join('\n'));
    console.log(`\nall: ${result.ops} operations (${result.ops_per_s}/s), p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms (target ≤ ${TARGET_P99_MS}), max ${result.max_ms} ms; event loop late p99 ≤ ${result.loop_delay.p99_le_s} s; CLI writes ${cliWrites}`);
    console.log(JSON.stringify(result));
    sink.kill();
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
