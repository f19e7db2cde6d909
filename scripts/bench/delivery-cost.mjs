// What a delivery costs the server, whatever else runs on the machine: CPU time (or instructions,
// under callgrind) of a real `tel serve` process, all its threads, per `channel_create` delivery
// of simulated calls fired through the API (32 in flight, as ../shared/bench/webhooks.mjs fires
// them) and counted at a local sink. Several commits side by side: each ref gets a temporary
// worktree (lib/checkout.mjs), a server warmed up, then rounds interleaved A B A B, medians.
// Wall-clock rates on a loaded machine are noise; CPU seconds a delivery are not (much).
//
//   npx node scripts/bench/delivery-cost.mjs [REF…] [--n 5000] [--warmup 3000] [--rounds 3]
//        [--mode cpu|callgrind] [--tail-ms 1500] [--no-pin] [--threads] [--jit] [--json] [--cpu-prof DIR]
//        [--idle-client]
//
// REF: a commit (`main`, `07b1655`, `HEAD~3`), `.` for this checkout as it is (the default), or
// `dir:PATH` for an installed checkout. `--mode callgrind` runs each server under valgrind, its
// instrumentation on for the measured rounds only (slow: use --n 1000 --warmup 2000 --rounds 1).
// Per round: the server's CPU µs a delivery until the last one reached the sink (what the
// delivery yardstick's rate pays for) and including the `--tail-ms` after it (work a burst leaves
// behind: checkpoints, collections); `--threads` also splits it by thread name. Beside it, the
// KiB the server wrote a delivery, tail included (`/proc/PID/io` wchar: sockets, the write-ahead
// log, checkpoints), which load moves little (only through the sizes of group commits): what a
// change to the file's writes buys shows there when CPU time is noise. `--cpu-prof DIR`
// leaves each server's V8 CPU profile (warm-up included, a sample every 100 µs) in DIR as `<label>.cpuprofile`, for
// `scripts/bench/profile-top.mjs` or Chrome's DevTools. `--jit` runs each server with V8's
// `--trace-opt --trace-deopt` and says, per round, how many functions V8 optimised (and the
// milliseconds its compiler took, on V8's compiler threads, see bin/tel.js) and how many
// optimised functions it threw away: a round whose CPU is high for that is paying for code, not
// for deliveries. Each round follows a pause (the tail, then 300 ms), as the yardstick's do.
// `--idle-client` has a client connect before each server's warm-up and close its idle connection
// after it, as the yardstick's readiness probe does (the first round then meets that close).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { prepareCheckout, existingCheckout, telCommand } from './lib/checkout.mjs';
import { pin, pinned, startCountingSink } from './lib/http.mjs';
import { call, keepProfiles, listeningUrl } from './lib/serve-checkout.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    n: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    mode: { type: 'string', default: 'cpu' },
    'tail-ms': { type: 'string', default: '1500' },
    'no-pin': { type: 'boolean', default: false },
    threads: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    jit: { type: 'boolean', default: false },
    'idle-client': { type: 'boolean', default: false },
  },
});
const N = Number(opt.n);
const WARM = Number(opt.warmup);
const ROUNDS = Number(opt.rounds);
const CONC = Number(opt.concurrency);
const TAIL_MS = Number(opt['tail-ms']);
const MODE = opt.mode;
const PIN = pinned && !opt['no-pin'];
if (!['cpu', 'callgrind'].includes(MODE) || !(N > 0 && ROUNDS > 0 && CONC > 0 && WARM >= 0)) {
  console.error('usage: delivery-cost.mjs [REF…] [--n N] [--warmup N] [--rounds R] [--mode cpu|callgrind] [--tail-ms MS] [--no-pin] [--threads] [--jit] [--idle-client]');
  process.exit(2);
}
const refs = positionals.length ? positionals : ['.'];
const log = (...a) => process.stderr.write(`· ${a.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;

const work = mkdtempSync(join(tmpdir(), 'tel-bench-cost-'));
const servers = [];
const checkouts = [];
let sink;
function stopEverything() {
  for (const s of servers) try { process.kill(s.child.pid, 'SIGKILL'); } catch { /* gone */ }
  sink?.child.kill('SIGKILL');
  for (const c of checkouts) c.cleanup();
  rmSync(work, { recursive: true, force: true });
}
process.on('exit', stopEverything);
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(130));

/** CPU seconds of every thread of `pid` so far (dead threads included), and per thread name. */
function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const total = (Number(f[11]) + Number(f[12])) / TICK;
  // the kernel's share (system calls, page faults) and the minor page faults: what a change to
  // memory use or I/O moves that the instructions of the process do not show
  const sys = Number(f[12]) / TICK;
  const minflt = Number(f[7]);
  const byThread = {};
  if (opt.threads) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        // schedstat: nanoseconds on the CPU (finer than the clock ticks of stat)
        const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        byThread[name] = (byThread[name] ?? 0) + ns / 1e9;
      } catch { /* the thread ended */ }
    }
  }
  return { total, sys, minflt, byThread, wchar: bytesWritten(pid) };
}

/** Bytes `pid` handed to write calls so far, all threads (sockets and files alike). */
function bytesWritten(pid) {
  const m = /^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const md5 = (s) => createHash('md5').update(s).digest('hex');

/** Runs `bin/tel.js` of a checkout once (init), answering its stdout. */
function runTel(checkout, args) {
  const cmd = telCommand(checkout.dir);
  return execFileSync(cmd.node, [...cmd.args, ...args], { env: { ...process.env, ...cmd.env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A server of `checkout` on a fresh database, a sub-account with one hook to the sink, warmed up. */
async function startServer(checkout, index) {
  const db = join(work, `${index}.db`);
  const password = 'bench-pw';
  const out = runTel(checkout, ['--db', db, 'init', '--account', 'acme', '--username', 'admin', '--password', password]);
  const creds = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1));
  const cmd = telCommand(checkout.dir);
  const profDir = join(work, `prof-${index}`);
  const profFlags = opt['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profDir}`] : [];
  const jitFlags = opt.jit ? ['--trace-opt', '--trace-deopt'] : [];
  let argv = [cmd.node, ...profFlags, ...jitFlags, ...cmd.args, '--db', db, 'serve', '--host', '127.0.0.1', '--port', '0'];
  const cgOut = join(work, `callgrind.${index}.%p`);
  if (MODE === 'callgrind') {
    argv = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${cgOut}`, ...argv];
  }
  if (PIN) argv = ['taskset', '-c', '0', ...argv];
  const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...cmd.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const { url } = await listeningUrl(child, checkout.label);
  const jit = { optimised: 0, compileMs: 0, deopts: 0 };
  if (opt.jit) countJit(child.stdout, jit);
  // valgrind runs the program in the pid it started with; taskset execs: the pid is the server's
  const pid = child.pid;
  if (PIN) pin(0, pid);
  const login = await call(url, 'PUT', '/v2/user_auth', { data: { credentials: md5(`admin:${password}`), account_name: 'acme' } });
  const token = login.auth_token;
  const account = (await call(url, 'PUT', `/v2/accounts/${creds.account_id}`, { token, data: { name: `bench-${index}` } })).data.id;
  await call(url, 'PUT', `/v2/accounts/${account}/webhooks`, {
    token,
    data: { name: 'bench', uri: `http://127.0.0.1:${sink.port}/s${index}/x`, hook: 'channel_create', http_verb: 'post', format: 'json' },
  });
  const pool = new Pool(url, { connections: CONC, pipelining: 1, keepAliveTimeout: 60_000 });
  const server = { checkout, child, pid, url, token, account, pool, rounds: [], cgOut, profDir, group: `s${index}`, jit };
  servers.push(server);
  const idle = opt['idle-client'] ? await idleClient(url) : undefined;
  if (WARM) {
    log(`${checkout.label}: warm-up, ${WARM} calls`);
    await fireAndWait(server, WARM);
  }
  await idle?.close();
  return server;
}

/**
 * A client that connected before the warm-up (one request on a keep-alive connection) and closes
 * its idle connection after it, as an HTTP client's idle timeout does (Node's agent: 5 s).
 */
async function idleClient(url) {
  const agent = new http.Agent({ keepAlive: true });
  await new Promise((resolve, reject) => {
    http.get(`${url}/v2/webhooks`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
  });
  return {
    async close() {
      agent.destroy();
      await sleep(300);
    },
  };
}

let seq = 0;
/** Fires `n` simulated calls at `server`, `CONC` in flight; resolves once the sink counted them all. */
async function fireAndWait(server, n) {
  const before = await delivered(server);
  let next = 0;
  const headers = { 'content-type': 'application/json', 'x-auth-token': server.token };
  const worker = async () => {
    while (next < n) {
      next++;
      seq++;
      const body = JSON.stringify({ data: {
        kind: 'call', direction: 'inbound', caller_id_name: 'Bench Caller',
        caller_id_number: `+1415555${String(seq % 10000).padStart(4, '0')}`, callee_id_number: '+14155550100', answer: false,
      } });
      const res = await server.pool.request({ path: `/v2/accounts/${server.account}/simulations`, method: 'PUT', headers, body, headersTimeout: 600_000, bodyTimeout: 600_000 });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`simulation: ${res.statusCode} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONC, n) }, worker));
  for (;;) {
    const got = (await delivered(server)) - before;
    if (got >= n) return;
    if (server.child.exitCode !== null) throw new Error(`${server.checkout.label}: the server ended`);
    await sleep(5);
  }
}

async function delivered(server) {
  const c = await sink.stats();
  return c[server.group] ?? 0;
}

/**
 * Counts, in `into`, what V8's `--trace-opt --trace-deopt` lines on `stream` report: functions
 * optimised and the compiler's milliseconds (`took A, B, C ms`), functions deoptimised.
 */
function countJit(stream, into) {
  let rest = '';
  stream.on('data', (d) => {
    const lines = (rest + d).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const took = /^\[completed (?:compiling|optimizing) .* took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line);
      if (took) {
        into.optimised++;
        into.compileMs += Number(took[1]) + Number(took[2]) + Number(took[3]);
      } else if (line.startsWith('[bailout (kind: deopt')) into.deopts++;
    }
  });
}

/** One measured round of `server`: CPU (or instructions) a delivery, without and with the tail. */
async function measure(server) {
  execFileSync('sync');
  await sleep(300);
  if (MODE === 'callgrind') {
    execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-i', 'on', String(server.pid)], { stdio: 'ignore' });
  }
  const c0 = cpuOf(server.pid);
  const jit0 = { ...server.jit };
  const t0 = performance.now();
  await fireAndWait(server, N);
  const c1 = cpuOf(server.pid);
  const t1 = performance.now();
  await sleep(TAIL_MS);
  const c2 = cpuOf(server.pid);
  const jit1 = { ...server.jit };
  const r = { wall_s: (t1 - t0) / 1000, cpu_us: ((c1.total - c0.total) * 1e6) / N, cpu_tail_us: ((c2.total - c0.total) * 1e6) / N, sys_us: ((c2.sys - c0.sys) * 1e6) / N, faults: (c2.minflt - c0.minflt) / N, write_kib: (c2.wchar - c0.wchar) / 1024 / N };
  if (opt.jit) r.jit = { optimised: jit1.optimised - jit0.optimised, compile_ms: +(jit1.compileMs - jit0.compileMs).toFixed(1), deopts: jit1.deopts - jit0.deopts };
  if (opt.threads) {
    r.threads_us = {};
    for (const [name, s] of Object.entries(c2.byThread)) {
      const d = s - (c0.byThread[name] ?? 0);
      if (d > 0) r.threads_us[name] = Math.round((d * 1e6) / N * 10) / 10;
    }
  }
  if (MODE === 'callgrind') {
    execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-i', 'off', String(server.pid)], { stdio: 'ignore' });
    r.instructions = instructionsSince(server) / N;
  }
  return r;
}

/** Instructions in the callgrind dumps of `server` written since the last call (all threads). */
function instructionsSince(server) {
  const seen = (server.seenDumps ??= new Set());
  const name = new RegExp(`^callgrind\\.${servers.indexOf(server)}\\.\\d+\\.\\d+`);
  let total = 0;
  for (const f of readdirSync(work)) {
    if (!name.test(f) || seen.has(f)) continue;
    seen.add(f);
    const m = /^totals:\s+(\d+)/m.exec(readFileSync(join(work, f), 'utf8'));
    if (m) total += Number(m[1]);
  }
  return total;
}

const median = (xs) => { const a = [...xs].sort((x, y) => x - y); const m = a.length >> 1; return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2; };

try {
  if (MODE === 'callgrind' && !existsSync('/usr/bin/valgrind')) throw new Error('valgrind is not installed');
  sink = await startCountingGroups();
  for (const ref of refs) checkouts.push(ref.startsWith('dir:') ? existingCheckout(ref.slice(4)) : prepareCheckout(ref, { log }));
  for (let i = 0; i < checkouts.length; i++) await startServer(checkouts[i], i);
  log(`${MODE === 'cpu' ? 'CPU time' : 'instructions'} a delivery; ${N} calls a round, ${ROUNDS} rounds, ${CONC} in flight; ${PIN ? 'servers on CPU 0, the rest on CPU 1' : 'not pinned'}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of servers) {
      const m = await measure(s);
      s.rounds.push(m);
      log(`${s.checkout.label} #${r + 1}: ${m.cpu_us.toFixed(1)} µs a delivery (${m.cpu_tail_us.toFixed(1)} with the tail, ${m.sys_us.toFixed(1)} in the kernel, ${m.faults.toFixed(2)} page faults), ${m.write_kib.toFixed(1)} KiB written${m.instructions ? `, ${Math.round(m.instructions).toLocaleString('en-US')} instructions` : ''}; ${(N / m.wall_s).toFixed(0)}/s wall${m.jit ? `; V8 optimised ${m.jit.optimised} functions (${m.jit.compile_ms} ms), deoptimised ${m.jit.deopts}` : ''}${m.threads_us ? ` ${JSON.stringify(m.threads_us)}` : ''}`);
    }
  }
  const result = servers.map((s) => {
    const out = {
      ref: s.checkout.label,
      cpu_us: +median(s.rounds.map((x) => x.cpu_us)).toFixed(1),
      cpu_tail_us: +median(s.rounds.map((x) => x.cpu_tail_us)).toFixed(1),
      rounds_cpu_us: s.rounds.map((x) => +x.cpu_us.toFixed(1)),
      sys_us: +median(s.rounds.map((x) => x.sys_us)).toFixed(1),
      faults: +median(s.rounds.map((x) => x.faults)).toFixed(2),
      write_kib: +median(s.rounds.map((x) => x.write_kib)).toFixed(1),
    };
    if (MODE === 'callgrind') out.instructions = Math.round(median(s.rounds.map((x) => x.instructions)));
    if (opt.jit) out.rounds_jit = s.rounds.map((x) => x.jit);
    if (opt.threads) {
      out.threads_us = {};
      for (const name of new Set(s.rounds.flatMap((x) => Object.keys(x.threads_us)))) out.threads_us[name] = +median(s.rounds.map((x) => x.threads_us[name] ?? 0)).toFixed(1);
    }
    return out;
  });
  const base = result[0];
  for (const r of result) {
    r.vs_first = +(r.cpu_us / base.cpu_us).toFixed(3);
    console.log(`${r.ref.padEnd(24)} ${String(r.cpu_us).padStart(8)} µs a delivery  ${String(r.cpu_tail_us).padStart(8)} with the tail  ${String(r.write_kib).padStart(6)} KiB written  ×${r.vs_first}${r.instructions ? `  ${r.instructions.toLocaleString('en-US')} instructions` : ''}`);
  }
  console.log(JSON.stringify({ bench: 'delivery-cost', mode: MODE, n: N, rounds: ROUNDS, pinned: PIN, results: result }));
} catch (err) {
  console.error(`delivery-cost: ${err.message}`);
  process.exitCode = 1;
} finally {
  for (const s of servers) await s.pool.close().catch(() => {});
  for (const s of servers) s.child.kill('SIGTERM');
  sink?.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => (s.child.exitCode !== null ? null : new Promise((r) => s.child.once('exit', r)))));
  if (opt['cpu-prof']) keepProfiles(servers, opt['cpu-prof'], log);
  await sleep(500);
}

/** A sink counting requests by their path's first segment (one a server), in its own process on CPU 1. */
async function startCountingGroups() {
  const { fork } = await import('node:child_process');
  const { writeFileSync } = await import('node:fs');
  const file = join(work, 'sink.cjs');
  writeFileSync(
    file,
    `const { createServer } = require('node:http');
     const n = {};
     const s = createServer((req, res) => { req.resume(); req.on('end', () => { const g = req.url.split('/')[1]; n[g] = (n[g] ?? 0) + 1; res.end('ok'); }); });
     s.keepAliveTimeout = 60000;
     s.listen(0, '127.0.0.1', () => process.send({ port: s.address().port }));
     process.on('message', () => process.send(n));`,
  );
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (PIN) { pin(1, child.pid); pin(1, process.pid); }
  const { port } = await new Promise((r) => child.once('message', r));
  return { port, child, stats: () => new Promise((r) => { child.once('message', r); child.send('n'); }) };
}
