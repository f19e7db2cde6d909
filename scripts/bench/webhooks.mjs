// Webhook deliveries per second on a real `tel serve`: simulated call events written to the
// database file (as the offline CLI writes them), each matching one hook, drained by a server
// as JSON to a local sink answering 200 with every attempt recorded; against plain undici POSTs
// of the same bodies to the same sink with the same concurrency, in the same run. Also the same
// events written while the server runs (end to end, for information). Then ten hooks, one of
// them pointing at an endpoint that never answers: the other nine keep their throughput.
// Targets: at least 3,000 deliveries/s, at least 0.4 of plain undici, nine hooks at least 0.8.
//
//   npx node scripts/bench/webhooks.mjs [--events 20000]
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEL_NODE_FLAGS } from './lib/http.mjs';
import { loadEngine as loadEngineFrom } from './lib/engine.mjs';
import { Agent } from 'undici';

const TARGET_PER_SECOND = 3_000;
const TARGET_RATIO = 0.4;
const TARGET_NINE_RATIO = 0.8;
const CONCURRENCY = 16; // the sender's default per-target concurrency
const BATCH = 250; // simulations per transaction, as a busy CLI script would write them

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({ options: { events: { type: 'string', default: '20000' } } });
const EVENTS = Number(opts.events);
if (!(Number.isInteger(EVENTS) && EVENTS >= 1000 && EVENTS <= 1_000_000 && EVENTS % 10 === 0)) {
  console.error('--events must be a multiple of 10 in 1000..1000000.');
  process.exit(2);
}
if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(`the benchmark needs the project's Node 24 (this is ${process.versions.node}): run it with \`npx node scripts/bench/webhooks.mjs\`.`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'tel-bench-webhooks-'));
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The engine, bundled from the sources, to write events into the database file from this process. */
const loadEngine = () =>
  loadEngineFrom(
    dir,
    `
        export { openCore, closeCore } from './src/core.ts';
        export { initDatabase } from './src/modules/accounts/bootstrap.ts';
        export { createWebhook } from './src/modules/webhooks/service.ts';
        export { simulate } from './src/modules/simulations/module.ts';
        export { transaction } from './src/store/db.ts';`,
  );

/** The sink, in its own process: `live` answers 200; `other` answers 200 or never (mode). */
const sinkSource = `
const { createServer } = require('node:http');
const counts = {};
let hang = false;
const handler = (res, key) => { counts[key] = (counts[key] ?? 0) + 1; };
const live = createServer((req, res) => {
  req.resume();
  req.on('end', () => { handler(res, req.url.split('/')[1].split('?')[0]); res.writeHead(200).end('ok'); });
});
const other = createServer((req, res) => {
  req.resume();
  req.on('end', () => { handler(res, 'other'); if (!hang) res.writeHead(200).end('ok'); });
});
live.keepAliveTimeout = other.keepAliveTimeout = 60000;
live.listen(0, '127.0.0.1', () => other.listen(0, '127.0.0.1', () =>
  process.send({ ready: true, live: live.address().port, other: other.address().port })));
process.on('message', (m) => {
  if (m.cmd === 'stats') process.send({ counts });
  if (m.cmd === 'hang') hang = m.value;
  if (m.cmd === 'reset') { for (const k of Object.keys(counts)) delete counts[k]; process.send({ reset: true }); }
});`;

async function startSink() {
  const file = join(dir, 'sink.cjs');
  writeFileSync(file, sinkSource);
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  const ready = await new Promise((r) => child.once('message', r));
  const ask = (msg, key) =>
    new Promise((r) => {
      const on = (m) => key in m && (child.off('message', on), r(m));
      child.on('message', on);
      child.send(msg);
    });
  return {
    live: `http://127.0.0.1:${ready.live}`,
    other: `http://127.0.0.1:${ready.other}`,
    counts: async () => (await ask({ cmd: 'stats' }, 'counts')).counts,
    reset: () => ask({ cmd: 'reset' }, 'reset'),
    hang: (value) => child.send({ cmd: 'hang', value }),
  };
}

/** `tel serve` on a database, resolved once it listens. */
function startTel(db) {
  const child = spawn(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`tel serve printed no URL within 15 s: ${out}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (/http:\/\/127\.0\.0\.1:\d+/.test(out)) (clearTimeout(timer), resolveStart(child));
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`tel serve exited (${code}): ${out}`)));
  });
}

async function stopTel(child) {
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
  children.delete(child);
}

/** A fresh database with a master account and the hooks `hooks(core, accountId)` creates. */
function prepareDb(engine, name, setup) {
  const db = join(dir, `${name}.db`);
  const core = engine.openCore(db);
  const { account_id: accountId } = engine.initDatabase(core, { account: 'Bench', username: 'admin', password: 'bench-pass' });
  setup(core, accountId);
  return { db, core, accountId };
}

/** Writes `calls` unanswered call simulations (two events each) in batches, like a CLI script would. */
function writeCalls(engine, core, accountId, calls, fields) {
  for (let i = 0; i < calls; i += BATCH) {
    engine.transaction(core.db, () => {
      for (let j = i; j < Math.min(calls, i + BATCH); j++) engine.simulate(core, accountId, { kind: 'call', answer: false, ...fields(j) });
    });
  }
}

async function waitForCount(sink, pick, n, ms) {
  const until = Date.now() + ms;
  for (;;) {
    const c = pick(await sink.counts());
    if (c >= n) return performance.now();
    if (Date.now() > until) throw new Error(`only ${c} of ${n} deliveries arrived in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
const engine = await loadEngine();
const sink = await startSink();

// 1. Throughput: EVENTS events (EVENTS/2 calls × create + destroy), one hook for each type,
// written to the file first (a backlog), then drained by a server started on it.
const hooks = (core, accountId) => {
  for (const hook of ['channel_create', 'channel_destroy']) {
    engine.createWebhook(core, accountId, { name: hook, uri: `${sink.live}/${hook}`, hook, format: 'json' });
  }
};
const delivered = (c) => (c.channel_create ?? 0) + (c.channel_destroy ?? 0);
const number = (i) => ({ caller_id_number: `+1415555${String(i % 10000).padStart(4, '0')}` });
const a = prepareDb(engine, 'throughput', hooks);
const w0 = performance.now();
writeCalls(engine, a.core, a.accountId, EVENTS / 2, number);
const writeMs = performance.now() - w0;
let server = await startTel(a.db);
const t0 = performance.now();
const t1 = await waitForCount(sink, delivered, EVENTS, 120_000);
const ours = (EVENTS / (t1 - t0)) * 1000;
const recordedBy = Date.now() + 10_000;
let recorded = 0;
while (recorded < EVENTS && Date.now() < recordedBy) {
  recorded = a.core.db.prepare("SELECT COUNT(*) n FROM delivery_attempts WHERE result = 'success'").get().n;
  if (recorded < EVENTS) await new Promise((r) => setTimeout(r, 20));
}
await stopTel(server);
const bodies = a.core.db.prepare('SELECT payload FROM outbox ORDER BY id').all().map((r) => r.payload);

// The same events written while the server runs (the offline CLI beside `tel serve`): end to end.
await sink.reset();
const live = prepareDb(engine, 'beside', hooks);
server = await startTel(live.db);
const e0 = performance.now();
writeCalls(engine, live.core, live.accountId, EVENTS / 2, number);
const e1 = await waitForCount(sink, delivered, EVENTS, 120_000);
const endToEnd = (EVENTS / (e1 - e0)) * 1000;
await stopTel(server);
engine.closeCore(live.core);

// The baseline: the same JSON bodies POSTed with undici, same concurrency, same sink.
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
const b0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await agent.request({ origin: sink.live, path: '/baseline', method: 'POST', headers: { 'content-type': 'application/json' }, body });
      for await (const _ of res.body);
      if (res.statusCode !== 200) throw new Error(`baseline got ${res.statusCode}`);
    }
  }),
);
const baseline = (bodies.length / (performance.now() - b0)) * 1000;
await agent.close();

// 2. Ten hooks, events spread evenly; the tenth on its own origin, live then dead.
async function tenHooks(dead) {
  await sink.reset();
  sink.hang(dead);
  const run = prepareDb(engine, dead ? 'dead' : 'live', (core, accountId) => {
    core.config.set('webhooks', { default: { request_timeout_ms: 5000, attempt_failure_count: 1_000_000 } });
    for (let h = 0; h < 10; h++) {
      const uri = h === 9 ? `${sink.other}/tenth` : `${sink.live}/n${h}`;
      engine.createWebhook(core, accountId, { name: `hook ${h}`, uri, hook: 'channel_create', format: 'json', retries: 0, modifiers: { caller_id_name: `h${h}` } });
    }
  });
  const calls = EVENTS / 2;
  const nine = (calls / 10) * 9;
  writeCalls(engine, run.core, run.accountId, calls, (i) => ({ caller_id_name: `h${i % 10}` }));
  const srv = await startTel(run.db);
  const s0 = performance.now();
  const s1 = await waitForCount(sink, (c) => Object.entries(c).filter(([k]) => /^n\d$/.test(k)).reduce((t, [, v]) => t + v, 0), nine, 120_000);
  const counts = await sink.counts();
  await stopTel(srv);
  engine.closeCore(run.core);
  return { rate: (nine / (s1 - s0)) * 1000, tenth: counts.other ?? 0 };
}
const allLive = await tenHooks(false);
const oneDead = await tenHooks(true);
engine.closeCore(a.core);

const ratio = ours / baseline;
const nineRatio = oneDead.rate / allLive.rate;
console.log(`events: ${fmt(EVENTS)} (${fmt(EVENTS / 2)} simulated calls, written to the file in ${fmt(writeMs)} ms), JSON to a local sink answering 200, per-target concurrency ${CONCURRENCY}`);
console.log(`tel serve draining them (outbox → undici, attempts recorded: ${fmt(recorded)})  ${fmt(ours).padStart(8)} deliveries/s`);
console.log(`  the same written by another process while serving, end to end        ${fmt(endToEnd).padStart(8)} deliveries/s`);
console.log(`plain undici POSTs of the same bodies                                   ${fmt(baseline).padStart(8)} requests/s`);
console.log(`ratio to plain undici ${ratio.toFixed(2)} (target ${TARGET_RATIO}); target ${fmt(TARGET_PER_SECOND)}/s`);
console.log(`ten hooks, all live:        nine hooks ${fmt(allLive.rate).padStart(8)} deliveries/s (tenth got ${fmt(allLive.tenth)})`);
console.log(`ten hooks, tenth never answers: nine ${fmt(oneDead.rate).padStart(8)} deliveries/s (tenth holds ${fmt(oneDead.tenth)} requests)`);
console.log(`nine hooks keep ${nineRatio.toFixed(2)} of their throughput (target ${TARGET_NINE_RATIO})`);
const ok = ours >= TARGET_PER_SECOND && ratio >= TARGET_RATIO && nineRatio >= TARGET_NINE_RATIO && recorded >= EVENTS;
console.log(ok ? 'PASS' : 'FAIL');
process.exit(ok ? 0 : 1);
