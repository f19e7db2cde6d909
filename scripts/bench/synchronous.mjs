// What `storage.synchronous = full` costs against `normal`, in the same run: servers of each
// setting, in turn (A B A B …, each on a new database), take simulated calls fired through the API
// by 32 clients while each call's `channel_create` is delivered as JSON to a sink in its own
// process; the figures are the calls answered and the deliveries made per second over a measured
// window after a warm-up, and the simulations' latency. With taskset, tel runs on the first CPU
// and everything else on the second (what tel does with one core). Medians of the rounds, and
// full / normal: the median of each round's ratio. Also what one small commit costs alone with
// each setting on the same disk.
//
//   npx node scripts/bench/synchronous.mjs [--rounds 3] [--seconds 5] [--warmup 3] [--firing 32]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, pin, pinned, runMain, startCountingSink, startProcess } from './lib/http.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    firing: { type: 'string', default: '32' },
  },
});
const rounds = Number(opts.rounds);
const seconds = Number(opts.seconds);
const warmupSeconds = Number(opts.warmup);
const firing = Number(opts.firing);
const LEVELS = ['normal', 'full'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tel = (args) => execFileSync(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', ...args], { cwd: root, encoding: 'utf8' });

/** Milliseconds one small commit takes with `level`, on the disk under `dir` (the mean of 300). */
function commitMs(dir, level) {
  const db = new DatabaseSync(join(dir, `commits-${level}.db`));
  try {
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${level}; CREATE TABLE IF NOT EXISTS t (v TEXT)`);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const n = 300;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      db.exec('BEGIN');
      insert.run('x'.repeat(600));
      db.exec('COMMIT');
    }
    return Number(((performance.now() - t0) / n).toFixed(3));
  } finally {
    db.close();
  }
}

/** One server with `level` on a new database under `dir`: calls fired, deliveries counted. */
async function measure(dir, level, sink) {
  const db = join(dir, `${level}-${Date.now()}.db`);
  const init = JSON.parse(tel(['init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass']));
  tel(['config', 'set', 'storage', 'synchronous', level, '--db', db]);
  const server = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
  pin(0, server.child.pid);
  try {
    const auth = await (await fetch(`${server.url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: init.api_key } }) })).json();
    const headers = { 'content-type': 'application/json', 'x-auth-token': auth.auth_token };
    const account = init.account_id;
    const hook = await fetch(`${server.url}/v2/accounts/${account}/webhooks`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ data: { name: 'bench', uri: `http://127.0.0.1:${sink.port}/calls`, hook: 'channel_create', format: 'json' } }),
    });
    if (hook.status !== 201) throw new Error(`creating the hook answered ${hook.status}`);

    const pool = new Pool(server.url, { connections: firing, pipelining: 1 });
    const body = JSON.stringify({ data: { kind: 'call', direction: 'inbound', caller_id_number: '+14155550100', answer: false } });
    let stop = false;
    let fired = 0;
    let measuring = false;
    const latencies = [];
    const fire = Promise.all(
      Array.from({ length: firing }, async () => {
        while (!stop) {
          const t0 = performance.now();
          const r = await pool.request({ path: `/v2/accounts/${account}/simulations`, method: 'PUT', headers, body });
          await r.body.dump();
          if (r.statusCode !== 201) throw new Error(`a simulation answered ${r.statusCode}`);
          fired += 1;
          if (measuring) latencies.push(performance.now() - t0);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
    const before = await sink.delivered();
    const firedBefore = fired;
    measuring = true;
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const deliveries = ((await sink.delivered()) - before) / seconds;
    const calls = (fired - firedBefore) / seconds;
    stop = true;
    await fire;
    await pool.close();
    latencies.sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
    return { level, calls_per_s: Math.round(calls), deliveries_per_s: Math.round(deliveries), p50_ms: Number(pct(0.5).toFixed(1)), p99_ms: Number(pct(0.99).toFixed(1)) };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
}

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-sync-'));
  pin(1, process.pid);
  let sink;
  try {
    sink = await startCountingSink(dir);
    const runs = [];
    for (let i = 0; i < rounds; i++) {
      for (const level of LEVELS) {
        const r = await measure(dir, level, sink);
        runs.push(r);
        console.log(`· round ${i + 1} ${level.padEnd(6)} ${r.calls_per_s} calls/s, ${r.deliveries_per_s} deliveries/s, simulation p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms`);
      }
    }
    const of = (level, key) => median(runs.filter((r) => r.level === level).map((r) => r[key]));
    const summary = Object.fromEntries(
      LEVELS.map((level) => [level, { calls_per_s: of(level, 'calls_per_s'), deliveries_per_s: of(level, 'deliveries_per_s'), p50_ms: of(level, 'p50_ms'), p99_ms: of(level, 'p99_ms') }]),
    );
    // each round's full against the normal run just before it: a slow spell of the box weighs on both
    const commit_ms = Object.fromEntries(LEVELS.map((level) => [level, median([1, 2, 3].map(() => commitMs(dir, level)))]));
    console.log(`· one commit alone: ${commit_ms.normal} ms with normal, ${commit_ms.full} ms with full (the disk's sync)`);
    const pairs = Array.from({ length: rounds }, (_, i) => Number((runs[2 * i + 1].deliveries_per_s / runs[2 * i].deliveries_per_s).toFixed(2)));
    const ratio = median(pairs);
    console.log(
      `· full / normal: ${ratio} of the deliveries per second (median of the rounds: ${pairs.join(', ')}; ${pinned ? 'tel on CPU 0, the rest on CPU 1' : 'not pinned'})`,
    );
    console.log(JSON.stringify({ bench: 'synchronous', pinned, rounds, ...summary, full_vs_normal: ratio, full_vs_normal_by_round: pairs, commit_ms, runs }));
  } finally {
    sink?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
