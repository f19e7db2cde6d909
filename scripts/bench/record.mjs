// What `tel record` adds to a request: the same requests to a `tel serve`, directly and through a
// `tel record` in front of it, interleaved one by one in the same run (so that both see the same
// load on the box), one at a time on a kept-alive connection each: an account's GET (1 KB) and a
// listing of 200 devices (paginate=false, 40 KB). Also the CPU tel record spends a request (both
// its threads), which the box's load does not change, against the server's. Then checks that the
// recording holds every exchange made through it. Target: at most 2 ms more at p99. The p99s wait
// for cores the box's other work holds: the output gives the load, and the nice value of the
// bench's scheduling group when it was run ahead of that work (as root, second line).
//
//   npx node scripts/bench/record.mjs [--requests 3000]
//   setsid sh -c 'echo -10 > /proc/self/autogroup; exec npx node scripts/bench/record.mjs'
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, runMain, startProcess, stopAll } from './lib/http.mjs';

const TARGET_ADDED_P99_MS = 2;
const WARMUP = 300;
const DEVICES = 200;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const REQUESTS = Number(opts.requests);
/** CPU time a process has used, in ms (user and system, all its threads). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
/** The nice value of this process's scheduling group on Linux (`/proc/self/autogroup`), when it is not 0. */
const schedulingGroup = () => {
  try {
    const nice = Number(/nice (-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'))?.[1] ?? 0);
    return nice === 0 ? {} : { autogroup_nice: nice };
  } catch {
    return {};
  }
};
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (v) => Math.round(v * 1000) / 1000;

async function main() {
  if (!(Number.isInteger(REQUESTS) && REQUESTS > 0)) throw new Error('--requests must be a whole number above 0');
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-record-'));
  try {
    const db = join(dir, 'bench.db');
    const out = join(dir, 'bench.jsonl');
    const init = JSON.parse(execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'pw'], { cwd: root, encoding: 'utf8' }));
    const server = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    const record = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'record', '--upstream', server.url, '--port', '0', '--out', out], { cwd: root });
    // the proxy prints a line per exchange: drained, as a terminal would take them
    record.child.stdout.resume();
    const direct = new Pool(server.url, { connections: 1 });
    const proxied = new Pool(record.url, { connections: 1 });
    const call = async (pool, method, path, token, data) => {
      const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) }, body: data === undefined ? undefined : JSON.stringify({ data }) });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
      return JSON.parse(text);
    };
    const token = (await call(direct, 'PUT', '/v2/api_auth', undefined, { api_key: init.api_key })).auth_token;
    const account = (await call(direct, 'PUT', `/v2/accounts/${init.account_id}`, token, { name: 'Devices' })).data.id;
    for (let i = 0; i < DEVICES; i++) await call(direct, 'PUT', `/v2/accounts/${account}/devices`, token, { name: `phone ${i}`, sip: { username: `phone${i}` } });
    const kinds = { get: `/v2/accounts/${account}`, listing: `/v2/accounts/${account}/devices?paginate=false` };
    const times = { get: { direct: [], proxied: [] }, listing: { direct: [], proxied: [] } };
    let throughProxy = 0;
    let cpu;
    const timed = async (pool, path) => {
      const t = performance.now();
      await call(pool, 'GET', path, token);
      return performance.now() - t;
    };
    let loadAtStart;
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      if (i === WARMUP) {
        cpu = { record: cpuMs(record.child.pid), server: cpuMs(server.child.pid) };
        loadAtStart = loadavg()[0];
      }
      for (const [kind, path] of Object.entries(kinds)) {
        // one then the other, the order swapped each time
        const first = i % 2 === 0 ? 'direct' : 'proxied';
        const second = first === 'direct' ? 'proxied' : 'direct';
        const a = await timed(first === 'direct' ? direct : proxied, path);
        const b = await timed(second === 'direct' ? direct : proxied, path);
        throughProxy++;
        if (i < WARMUP) continue;
        times[kind][first].push(a);
        times[kind][second].push(b);
      }
    }
    // what the proxy costs a request whatever the load: its CPU (both threads), against the server's
    // the box's load (runnable threads, a minute's average) while measured: what the p99s wait behind
    const load = { start: round(loadAtStart), end: round(loadavg()[0]) };
    const measured = REQUESTS * Object.keys(kinds).length;
    const cpuPerRequest = {
      record_ms: round((cpuMs(record.child.pid) - cpu.record) / measured),
      server_ms: round((cpuMs(server.child.pid) - cpu.server) / (2 * measured)),
    };
    await Promise.all([direct.close(), proxied.close()]);
    record.child.kill('SIGTERM');
    await new Promise((r) => record.child.once('exit', r));
    const recorded = readFileSync(out, 'utf8').split('\n').filter((l) => l.startsWith('{"seq"')).length;
    stopAll();

    const results = {};
    let added = -Infinity;
    for (const kind of Object.keys(kinds)) {
      const d = times[kind].direct.sort((x, y) => x - y);
      const p = times[kind].proxied.sort((x, y) => x - y);
      results[kind] = {
        direct: { p50: round(pct(d, 50)), p99: round(pct(d, 99)) },
        proxied: { p50: round(pct(p, 50)), p99: round(pct(p, 99)) },
        added_p50_ms: round(pct(p, 50) - pct(d, 50)),
        added_p99_ms: round(pct(p, 99) - pct(d, 99)),
      };
      added = Math.max(added, results[kind].added_p99_ms);
      console.log(
        `${kind.padEnd(8)} direct p50 ${results[kind].direct.p50.toFixed(2)} p99 ${results[kind].direct.p99.toFixed(2)} ms   through tel record p50 ${results[kind].proxied.p50.toFixed(2)} p99 ${results[kind].proxied.p99.toFixed(2)} ms   added p99 ${results[kind].added_p99_ms.toFixed(2)} ms`,
      );
    }
    const ok = added <= TARGET_ADDED_P99_MS && recorded === throughProxy;
    console.log(`CPU a request: tel record ${cpuPerRequest.record_ms} ms (forwarding, redacting, writing), tel serve ${cpuPerRequest.server_ms} ms`);
    console.log(`${recorded} of ${throughProxy} exchanges through the proxy recorded; the box's load ${load.start} → ${load.end} on ${availableParallelism()} cores; target: at most ${TARGET_ADDED_P99_MS} ms added at p99`);
    console.log(JSON.stringify({ bench: 'record', ok, requests: REQUESTS, recorded, through_proxy: throughProxy, load, ...schedulingGroup(), cpu_per_request: cpuPerRequest, ...results }));
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
