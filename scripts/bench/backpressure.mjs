// Backpressure: a backlog far larger than the sink can take grows the outbox on disk, not the
// server's heap. 100,000 simulated calls (channel_create hooks on 50 accounts) are written to the
// database file first; then `tel serve` drains them to a sink (its own process) that answers
// every request after 2 s. The server's RSS is sampled every 250 ms until the sink has every
// delivery. Target: peak RSS under 200 MB, every delivery arrives.
//
//   npx node scripts/bench/backpressure.mjs [--events 100000] [--delay-ms 2000] [--concurrency 16]
// (--concurrency: tries in flight per hook; 16 is tel's default per-target concurrency)
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadEngine as loadEngineFrom } from './lib/engine.mjs';

const TARGET_RSS_MB = 200;
const ACCOUNTS = 50;
const BATCH = 500;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    'delay-ms': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
  },
});
const EVENTS = Number(opts.events);
const DELAY_MS = Number(opts['delay-ms']);
const CONCURRENCY = Number(opts.concurrency);
if (!(EVENTS >= ACCOUNTS && EVENTS % ACCOUNTS === 0)) {
  console.error(`--events must be a multiple of ${ACCOUNTS}.`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'tel-bench-backpressure-'));
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** The engine, bundled from the sources, to write events into the database file from this process. */
const loadEngine = () =>
  loadEngineFrom(
    dir,
    `
        export { openCore, closeCore } from './src/core.ts';
        export { initDatabase } from './src/modules/accounts/bootstrap.ts';
        export { createAccount } from './src/modules/accounts/service.ts';
        export { createWebhook } from './src/modules/webhooks/service.ts';
        export { simulate } from './src/modules/simulations/module.ts';
        export { transaction } from './src/store/db.ts';`,
  );

/** A sink in its own process: answers every request after DELAY_MS, counts them. */
async function startSink() {
  const file = join(dir, 'sink.cjs');
  writeFileSync(
    file,
    `const { createServer } = require('node:http');
     let n = 0;
     const s = createServer((req, res) => { req.resume(); req.on('end', () => setTimeout(() => { n++; res.end('ok'); }, ${DELAY_MS})); });
     s.keepAliveTimeout = 60000;
     s.listen(0, '127.0.0.1', () => process.send({ port: s.address().port }));
     process.on('message', () => process.send({ n }));`,
  );
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  const { port } = await new Promise((r) => child.once('message', r));
  return { url: `http://127.0.0.1:${port}`, count: () => new Promise((r) => (child.once('message', (m) => r(m.n)), child.send('n'))) };
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

const engine = await loadEngine();
const sink = await startSink();
const db = join(dir, 'backlog.db');
const core = engine.openCore(db);
const master = engine.initDatabase(core, { account: 'Bench', username: 'admin', password: 'secret-pass' });
core.config.set('webhooks', { default: { per_target_concurrency: CONCURRENCY, request_timeout_ms: DELAY_MS + 30_000 } });
const accounts = [];
for (let i = 0; i < ACCOUNTS; i++) {
  const a = engine.createAccount(core, { name: `Tenant ${i}` }, { parentId: master.account_id });
  engine.createWebhook(core, a.id, { name: `h${i}`, uri: `${sink.url}/t${i}`, hook: 'channel_create', format: 'json', retries: 0 });
  accounts.push(a.id);
}
const t0 = performance.now();
for (let done = 0; done < EVENTS; ) {
  engine.transaction(core.db, () => {
    for (let k = 0; k < BATCH && done < EVENTS; k++, done++) engine.simulate(core, accounts[done % ACCOUNTS], { kind: 'call', answer: false });
  });
}
const queued = core.db.prepare("SELECT COUNT(*) n FROM outbox WHERE status = 'pending'").get().n;
engine.closeCore(core);
console.log(`· ${queued} deliveries queued in ${((performance.now() - t0) / 1000).toFixed(1)} s; sink answers after ${DELAY_MS} ms; ${ACCOUNTS} hooks × ${CONCURRENCY} in flight`);

// Started as a user starts it (bin/tel.js through its shebang, with the V8 flags it carries), on the project's Node.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
const tel = spawn(join(root, 'bin/tel.js'), ['serve', '--db', db, '--port', '0'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
children.add(tel);
await new Promise((r) => tel.stdout.on('data', (d) => /listening/.test(String(d)) && r()));
const started = performance.now();
let peak = 0;
let arrived = 0;
const timeoutS = Math.ceil((EVENTS / (ACCOUNTS * CONCURRENCY)) * (DELAY_MS / 1000) * 3 + 120);
while (arrived < EVENTS) {
  await new Promise((r) => setTimeout(r, 250));
  peak = Math.max(peak, rssMb(tel.pid));
  arrived = await sink.count();
  if ((performance.now() - started) / 1000 > timeoutS) break;
}
const seconds = (performance.now() - started) / 1000;
const ok = arrived === EVENTS && peak < TARGET_RSS_MB;
console.log(`· ${arrived}/${EVENTS} arrived in ${seconds.toFixed(1)} s (${Math.round(arrived / seconds)}/s); server RSS peak ${peak.toFixed(1)} MB (target < ${TARGET_RSS_MB})`);
console.log(JSON.stringify({ bench: 'webhooks-backpressure', ok, events: EVENTS, arrived, delay_ms: DELAY_MS, in_flight: ACCOUNTS * CONCURRENCY, seconds: Number(seconds.toFixed(1)), rss_peak_mb: Number(peak.toFixed(1)) }));
process.exit(ok ? 0 : 1);
