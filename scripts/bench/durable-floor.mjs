// How fast a delivery that survives a crash can be on one core, whatever the product: the
// webhooks yardstick's bare relay (node:http in, undici out, nothing stored) against the same relay
// that also writes each delivery to an outbox and commits it before answering the call, then
// records the attempt and deletes the outbox row once the sink answers (lib/floor-relay.mjs: two
// tables without indexes, group commits, no auth, no events, no CDRs). Its ratio bounds what a
// delivery engine that keeps an outbox row and an attempt row a delivery in SQLite can reach
// against the relay on this machine; with `--tel`, tel's own ratio shows how much more tel does.
// CPU µs a delivery (each process's, all threads, from /proc) are the steadier figures: the relays
// keep getting faster for tens of thousands of calls (V8 optimising them), hence the long warm-up.
//
// Calls are fired as the yardstick fires them (32 in flight, a small JSON body), counted when their
// delivery reaches a counting sink. The relays run pinned to the first CPU, the sink and this
// script to the second; rounds interleaved A B A B after a warm-up of each, medians.
//
// `--tel` adds this checkout's `tel serve` (a hook on `channel_create`, calls fired through
// `PUT /v2/accounts/{id}/simulations`) to the same rounds.
//
//   npx node scripts/bench/durable-floor.mjs [--n 5000] [--warmup 20000] [--rounds 4] [--tel] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { existingCheckout, root } from './lib/checkout.mjs';
import { pin, pinned, runMain, startCountingSink, startProcess, stopAll } from './lib/http.mjs';
import { call, cpuSecondsOf, median, serveCheckout } from './lib/serve-checkout.mjs';

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '4' },
    json: { type: 'boolean', default: false },
    tel: { type: 'boolean', default: false },
  },
});
const N = Number(opt.n);
const WARM = Number(opt.warmup);
const ROUNDS = Number(opt.rounds);
const CONC = 32;
if (!(N > 0 && WARM >= 0 && ROUNDS > 0)) {
  console.error('usage: durable-floor.mjs [--n N] [--warmup N] [--rounds R] [--tel] [--json]');
  process.exit(2);
}
const log = (...a) => process.stderr.write(`· ${a.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A delivery body the size of the yardstick's `channel_create` (741 bytes). */
function deliveryBody() {
  const doc = { account_id: 'a'.repeat(32), call_id: 'c'.repeat(36), hook_event: 'channel_create', call_direction: 'inbound', caller_id_number: '+14155550000', pad: '' };
  doc.pad = 'x'.repeat(741 - Buffer.byteLength(JSON.stringify(doc)));
  return Buffer.from(JSON.stringify(doc));
}

/** Fires n calls at a contender, CONC in flight; resolves once the sink has counted them all. */
async function round(relay, sink, n) {
  const before = await sink.delivered();
  const cpu0 = cpuSecondsOf(relay.pid);
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const k = next++;
      const body = JSON.stringify({ data: { kind: 'call', direction: 'inbound', caller_id_name: 'Bench Caller', caller_id_number: `+1415555${String(k % 10000).padStart(4, '0')}`, callee_id_number: '+14155550100', answer: false } });
      const r = await relay.pool.request({ path: relay.path, method: 'PUT', headers: relay.headers, body });
      await r.body.dump();
      if (r.statusCode !== 201) throw new Error(`${relay.mode}: a call answered ${r.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONC }, worker));
  for (;;) {
    if ((await sink.delivered()) - before >= n) break;
    if (performance.now() - t0 > 120_000) throw new Error(`${relay.mode}: deliveries missing after 120 s`);
    await sleep(5);
  }
  return { rate: n / ((performance.now() - t0) / 1000), cpuUs: ((cpuSecondsOf(relay.pid) - cpu0) / n) * 1e6 };
}

runMain(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-floor-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  pin(1, process.pid);
  const sink = await startCountingSink(dir);
  const relays = [];
  /** what stops the servers started here besides the relays */
  const stoppers = [];
  process.on('exit', () => stoppers.forEach((stop) => stop()));
  for (const mode of ['plain', 'durable']) {
    const cfg = { mode, db: join(dir, `${mode}.db`), sinkOrigin: `http://127.0.0.1:${sink.port}`, sinkPath: '/hook', bodyB64: deliveryBody().toString('base64'), connections: CONC };
    const { child, url } = await startProcess([new URL('./lib/floor-relay.mjs', import.meta.url).pathname, JSON.stringify(cfg)]);
    pin(0, child.pid);
    const headers = { 'content-type': 'application/json' };
    relays.push({ mode, pid: child.pid, path: '/v2/accounts/x/simulations', headers, pool: new Pool(url, { connections: CONC, pipelining: 1, keepAliveTimeout: 60_000 }), rates: [], cpu: [] });
  }
  if (opt.tel) {
    // this checkout's `tel serve`, one channel_create hook to the same sink (its other events have none)
    const tel = await serveCheckout(existingCheckout(root), join(dir, 'tel.db'));
    stoppers.push(() => tel.child.kill('SIGKILL'));
    const account = (await call(tel.url, 'PUT', `/v2/accounts/${tel.accountId}`, { token: tel.token, data: { name: 'floor' } })).data.id;
    await call(tel.url, 'PUT', `/v2/accounts/${account}/webhooks`, {
      token: tel.token,
      data: { name: 'floor', uri: `http://127.0.0.1:${sink.port}/tel`, hook: 'channel_create', http_verb: 'post', format: 'json' },
    });
    const headers = { 'content-type': 'application/json', 'x-auth-token': tel.token };
    relays.push({ mode: 'tel', pid: tel.pid, path: `/v2/accounts/${account}/simulations`, headers, pool: new Pool(tel.url, { connections: CONC, pipelining: 1, keepAliveTimeout: 60_000 }), rates: [], cpu: [] });
  }
  log(`${N} calls a round, ${ROUNDS} rounds, ${CONC} in flight; ${pinned ? 'relays on CPU 0, sink and clients on CPU 1' : 'not pinned'}`);
  for (const r of relays) await round(r, sink, WARM);
  for (let i = 0; i < ROUNDS; i++) {
    // alternate which goes first, so that neither always follows the other
    for (const r of i % 2 === 0 ? relays : [...relays].reverse()) {
      await sleep(300);
      const { rate, cpuUs } = await round(r, sink, N);
      r.rates.push(rate);
      r.cpu.push(cpuUs);
      log(`${r.mode} #${i + 1}: ${Math.round(rate)} deliveries/s, ${cpuUs.toFixed(1)} µs of CPU a delivery`);
    }
  }
  const [plain, durable, tel] = relays.map((r) => median(r.rates));
  const [plainCpu, durableCpu, telCpu] = relays.map((r) => median(r.cpu));
  const r3 = (x) => Math.round(x * 1000) / 1000;
  const result = {
    bench: 'durable-floor', n: N, rounds: ROUNDS, pinned,
    plain_per_s: Math.round(plain), durable_per_s: Math.round(durable), ratio: r3(durable / plain),
    plain_cpu_us: r3(plainCpu), durable_cpu_us: r3(durableCpu), cpu_ratio: r3(plainCpu / durableCpu),
    ...(opt.tel ? { tel_per_s: Math.round(tel), tel_ratio: r3(tel / plain), tel_cpu_us: r3(telCpu), tel_cpu_ratio: r3(plainCpu / telCpu) } : {}),
    rounds: Object.fromEntries(relays.map((r) => [r.mode, r.rates.map(Math.round)])),
  };
  for (const r of relays) await r.pool.close();
  stopAll();
  stoppers.forEach((stop) => stop());
  sink.child.kill();
  if (!opt.json) {
    console.log(`a durable relay delivers ${result.ratio} of the bare relay's rate (${result.durable_per_s} vs ${result.plain_per_s} a second); a delivery costs it ${result.durable_cpu_us} µs of CPU against ${result.plain_cpu_us} (${result.cpu_ratio})`);
    if (opt.tel) console.log(`tel delivers ${result.tel_ratio} of the bare relay's rate (${result.tel_per_s} a second); a delivery costs it ${result.tel_cpu_us} µs of CPU (${result.tel_cpu_ratio})`);
  }
  console.log(JSON.stringify(result));
});
