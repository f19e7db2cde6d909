// What an authenticated `GET /v2/accounts/{id}` costs the server, whatever else runs on the
// machine: CPU µs a request of a real `tel serve` (all its threads, from /proc), and the server's
// memory (RSS once started and idle, its peak after the load). Several commits side by side: each
// ref gets a temporary worktree (lib/checkout.mjs), a server warmed up, then rounds interleaved
// A B A B, medians. The request is the one `../shared/bench/api.mjs --part get` sends, 50 in flight.
//
//   npx node scripts/bench/get-cost.mjs [REF…] [--n 100000] [--warmup 100000] [--rounds 3]
//        [--connections 50] [--no-pin] [--json] [--cpu-prof DIR]
//
// REF: a commit (`main`, `HEAD~3`), `.` for this checkout as it is (the default), or `dir:PATH`
// for an installed checkout. `--cpu-prof DIR` leaves each server's V8 CPU profile in DIR (build
// the bundle unminified with TEL_BUNDLE_MINIFY=0 for readable names; scripts/bench/profile-top.mjs).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareCheckout, existingCheckout } from './lib/checkout.mjs';
import { pin, pinned } from './lib/http.mjs';
import { cpuSecondsOf, hammer, keepProfiles, median, memoryOf, serveCheckout } from './lib/serve-checkout.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    n: { type: 'string', default: '100000' },
    warmup: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'no-pin': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const N = Number(opt.n);
const WARM = Number(opt.warmup);
const ROUNDS = Number(opt.rounds);
const CONN = Number(opt.connections);
const PIN = pinned && !opt['no-pin'];
if (!(N > 0 && ROUNDS > 0 && CONN > 0 && WARM >= 0)) {
  console.error('usage: get-cost.mjs [REF…] [--n N] [--warmup N] [--rounds R] [--connections C] [--no-pin] [--cpu-prof DIR]');
  process.exit(2);
}
const refs = positionals.length ? positionals : ['.'];
const log = (...a) => process.stderr.write(`· ${a.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(join(tmpdir(), 'tel-bench-get-'));
const servers = [];
const checkouts = [];
process.on('exit', () => {
  for (const s of servers) try { s.child.kill('SIGKILL'); } catch { /* gone */ }
  for (const c of checkouts) c.cleanup();
  rmSync(work, { recursive: true, force: true });
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(130));

/** Sends `n` GETs, CONN in flight; all must answer 200. */
async function send(server, n) {
  const statuses = await hammer(server.url, server.path, server.headers, n, CONN);
  if (statuses['200'] !== n) throw new Error(`${server.checkout.label}: GETs answered ${JSON.stringify(statuses)}`);
}

async function start(checkout, i) {
  const profDir = join(work, `prof-${i}`);
  const nodeFlags = opt['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profDir}`] : [];
  const s = await serveCheckout(checkout, join(work, `${i}.db`), { pinCpu: PIN, nodeFlags });
  Object.assign(s, { checkout, profDir, rounds: [], path: `/v2/accounts/${s.accountId}`, headers: { 'x-auth-token': s.token } });
  servers.push(s);
  // what the server holds once its start-up's work (schemas compiled, garbage collected) is done
  await sleep(3000);
  s.idle = memoryOf(s.pid);
  if (WARM) {
    log(`${checkout.label}: warm-up, ${WARM} GETs`);
    await send(s, WARM);
  }
}

try {
  for (const ref of refs) checkouts.push(ref.startsWith('dir:') ? existingCheckout(ref.slice(4)) : prepareCheckout(ref, { log }));
  if (PIN) pin(1, process.pid);
  for (let i = 0; i < checkouts.length; i++) await start(checkouts[i], i);
  log(`CPU a GET; ${N} a round, ${ROUNDS} rounds, ${CONN} in flight; ${PIN ? 'servers on CPU 0, this on CPU 1' : 'not pinned'}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of servers) {
      await sleep(300);
      const c0 = cpuSecondsOf(s.pid);
      const t0 = performance.now();
      await send(s, N);
      const m = { cpu_us: ((cpuSecondsOf(s.pid) - c0) * 1e6) / N, per_s: N / ((performance.now() - t0) / 1000) };
      s.rounds.push(m);
      log(`${s.checkout.label} #${r + 1}: ${m.cpu_us.toFixed(1)} µs a GET; ${m.per_s.toFixed(0)}/s wall`);
    }
  }
  const result = servers.map((s) => {
    const mem = memoryOf(s.pid);
    return {
      ref: s.checkout.label,
      cpu_us: +median(s.rounds.map((x) => x.cpu_us)).toFixed(2),
      rounds_cpu_us: s.rounds.map((x) => +x.cpu_us.toFixed(2)),
      idle_rss_mib: +s.idle.rss_mib.toFixed(1),
      peak_rss_mib: +mem.peak_mib.toFixed(1),
      rss_mib: +mem.rss_mib.toFixed(1),
    };
  });
  for (const r of result) {
    r.vs_first = +(r.cpu_us / result[0].cpu_us).toFixed(3);
    console.log(`${r.ref.padEnd(24)} ${String(r.cpu_us).padStart(7)} µs a GET  ×${r.vs_first}  RSS idle ${r.idle_rss_mib} MiB, peak ${r.peak_rss_mib} MiB`);
  }
  console.log(JSON.stringify({ bench: 'get-cost', n: N, rounds: ROUNDS, connections: CONN, pinned: PIN, results: result }));
} catch (err) {
  console.error(`get-cost: ${err.message}`);
  process.exitCode = 1;
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => (s.child.exitCode !== null ? null : new Promise((r) => s.child.once('exit', r)))));
  if (opt['cpu-prof']) keepProfiles(servers, opt['cpu-prof'], log);
}
