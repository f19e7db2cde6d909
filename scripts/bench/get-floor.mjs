// How close an authenticated GET can come to a bare node:http server on one core, whatever the
// product: the GET yardstick's baseline (../shared/bench/api.mjs: fixed bytes), the least an
// authenticated GET of a Kazoo envelope needs (lib/floor-get-server.mjs: token, account and
// document looked up in memory, the envelope and its headers made per request), and this
// checkout's `tel serve`, each answering `GET /v2/accounts/{id}` to 50 keep-alive connections.
// The figure is each server's CPU µs a request (all its threads, from /proc), over rounds
// interleaved after a warm-up of each, medians; the bare server's µs over another's is the ratio
// the yardstick's req/s would show if the load generator never limited either.
// Servers are pinned to the first CPU, the client (a lean one: lib/serve-checkout.mjs's hammer) to
// the second.
//
//   npx node scripts/bench/get-floor.mjs [--n 100000] [--warmup 200000] [--rounds 5] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { existingCheckout, root } from './lib/checkout.mjs';
import { pin, pinned, runMain, startProcess, stopAll } from './lib/http.mjs';
import { cpuSecondsOf, hammer, median, serveCheckout } from './lib/serve-checkout.mjs';

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    warmup: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(opt.n);
const WARM = Number(opt.warmup);
const ROUNDS = Number(opt.rounds);
const CONNECTIONS = 50;
if (!(N > 0 && WARM >= 0 && ROUNDS > 0)) {
  console.error('usage: get-floor.mjs [--n N] [--warmup N] [--rounds R] [--json]');
  process.exit(2);
}
const log = (...a) => process.stderr.write(`· ${a.join(' ')}\n`);

/** CPU µs a GET of `server` over n requests, and its requests a second. */
async function measure(server, n) {
  const cpu0 = cpuSecondsOf(server.pid);
  const t0 = performance.now();
  const statuses = await hammer(server.url, server.path, server.headers, n, CONNECTIONS);
  if (statuses['200'] !== n) throw new Error(`${server.name}: GETs answered ${JSON.stringify(statuses)}`);
  return { cpuUs: ((cpuSecondsOf(server.pid) - cpu0) / n) * 1e6, rps: n / ((performance.now() - t0) / 1000) };
}

runMain(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-get-floor-'));
  const stoppers = [];
  process.on('exit', () => {
    stoppers.forEach((stop) => stop());
    rmSync(dir, { recursive: true, force: true });
  });
  pin(1, process.pid);
  const tel = await serveCheckout(existingCheckout(root), join(dir, 'tel.db'));
  stoppers.push(() => tel.child.kill('SIGKILL'));
  const path = `/v2/accounts/${tel.accountId}`;
  const headers = { 'x-auth-token': tel.token };
  const captured = await fetch(tel.url + path, { headers });
  const body = Buffer.from(await captured.arrayBuffer());
  const doc = JSON.parse(body.toString('utf8')).data;
  const servers = [];
  for (const mode of ['bare', 'minimal']) {
    const cfg = { mode, token: tel.token, accountId: tel.accountId, doc, bodyB64: body.toString('base64') };
    const { child, url } = await startProcess([new URL('./lib/floor-get-server.mjs', import.meta.url).pathname, JSON.stringify(cfg)]);
    pin(0, child.pid);
    servers.push({ name: mode, pid: child.pid, url, path, headers, runs: [] });
  }
  servers.push({ name: 'tel', pid: tel.pid, url: tel.url, path, headers, runs: [] });
  log(`${N} GETs a round, ${ROUNDS} rounds, ${CONNECTIONS} connections; ${pinned ? 'servers on CPU 0, the client on CPU 1' : 'not pinned'}`);
  for (const s of servers) await measure(s, WARM);
  for (let i = 0; i < ROUNDS; i++) {
    for (const s of i % 2 === 0 ? servers : [...servers].reverse()) {
      const run = await measure(s, N);
      s.runs.push(run);
      log(`${s.name} #${i + 1}: ${run.cpuUs.toFixed(1)} µs a GET, ${Math.round(run.rps)}/s`);
    }
  }
  const cpu = Object.fromEntries(servers.map((s) => [s.name, median(s.runs.map((r) => r.cpuUs))]));
  const r2 = (x) => Math.round(x * 100) / 100;
  const r3 = (x) => Math.round(x * 1000) / 1000;
  const result = {
    bench: 'get-floor', n: N, rounds: ROUNDS, pinned,
    bare_cpu_us: r2(cpu.bare), minimal_cpu_us: r2(cpu.minimal), tel_cpu_us: r2(cpu.tel),
    minimal_ratio: r3(cpu.bare / cpu.minimal), tel_ratio: r3(cpu.bare / cpu.tel),
    rounds_cpu_us: Object.fromEntries(servers.map((s) => [s.name, s.runs.map((r) => r2(r.cpuUs))])),
  };
  stopAll();
  stoppers.forEach((stop) => stop());
  if (!opt.json) {
    console.log(`a GET costs the bare server ${result.bare_cpu_us} µs of CPU, the least authenticated one ${result.minimal_cpu_us} (${result.minimal_ratio}), tel ${result.tel_cpu_us} (${result.tel_ratio})`);
  }
  console.log(JSON.stringify(result));
});
