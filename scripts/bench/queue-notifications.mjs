// Queue notifications end to end on a real `tel serve`: queue_call simulations over HTTP whose
// pickup and hangup notifications go through the durable outbox to a local sink, against the
// same simulations on a queue without notification URLs (the baseline), both in this run.
// Prints simulations/s of both, the ratio, and the latency from a simulation's answer to its
// pickup notification arriving at the sink.
//
//   npx node scripts/bench/queue-notifications.mjs [--calls 2000] [--concurrency 20]
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEL_NODE_FLAGS } from './lib/http.mjs';
import { Pool } from 'undici';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({ options: { calls: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '20' } } });
const calls = Number(opts.calls);
const concurrency = Number(opts.concurrency);
if (!(Number.isInteger(calls) && calls > 0 && calls <= 1_000_000) || !(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= 500)) {
  console.error('--calls must be in 1..1000000 and --concurrency in 1..500.');
  process.exit(2);
}
if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(`the benchmark needs the project's Node 24 (this is ${process.versions.node}): run it with \`npx node scripts/bench/queue-notifications.mjs\`.`);
  process.exit(2);
}

let server;

/** Starts `tel serve` and resolves with its URL. */
function startTel(db) {
  server = spawn(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`tel serve printed no URL within 15 s: ${out}`)), 15_000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart(m[0]);
      }
    });
    server.on('exit', (code) => reject(new Error(`tel serve exited (${code})`)));
  });
}

/** A sink on 127.0.0.1 noting when each (member_call_id, call_state) arrived. */
async function startSink() {
  const arrived = new Map();
  let count = 0;
  let onCount = () => {};
  const sink = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrived.set(`${body.member_call_id}/${body.call_state}`, performance.now());
      count++;
      onCount(count);
      res.writeHead(200).end();
    });
  });
  await new Promise((r) => sink.listen(0, '127.0.0.1', r));
  const waitFor = (n, ms) =>
    new Promise((resolveWait, reject) => {
      if (count >= n) return resolveWait();
      const timer = setTimeout(() => reject(new Error(`sink got ${count} of ${n} notifications in ${ms} ms`)), ms);
      onCount = (c) => {
        if (c >= n) (clearTimeout(timer), resolveWait());
      };
    });
  return { url: `http://127.0.0.1:${sink.address().port}`, arrived, waitFor, close: () => new Promise((r) => sink.close(r)) };
}

/** Runs `calls` queue_call simulations with `concurrency` in flight; answers when each was answered. */
async function simulate(pool, token, account, queue, agent, prefix) {
  const answered = new Map();
  let next = 0;
  let errors = 0;
  const started = performance.now();
  async function worker() {
    while (next < calls) {
      const id = `${prefix}${next++}`;
      const res = await pool.request({
        path: `/v2/accounts/${account}/simulations`,
        method: 'PUT',
        headers: { 'x-auth-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { kind: 'queue_call', queue_id: queue, agent_id: agent, member_call_id: id } }),
      });
      await res.body.dump();
      if (res.statusCode !== 201) errors++;
      answered.set(id, performance.now());
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { answered, errors, started, ms: performance.now() - started };
}

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-'));
  const sink = await startSink();
  try {
    const db = join(dir, 'bench.db');
    const tel = (args) => JSON.parse(execFileSync(process.execPath, ['bin/tel.js', ...args, '--db', db, '--json'], { cwd: root, encoding: 'utf8' }));
    const init = tel(['init', '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass']);
    const url = await startTel(db);
    const pool = new Pool(url, { connections: concurrency });
    const api = async (method, path, data, token) => {
      const res = await pool.request({ path, method, headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) }, body: JSON.stringify({ data }) });
      const body = await res.body.json();
      if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${JSON.stringify(body)}`);
      return body;
    };
    const token = (await api('PUT', '/v2/api_auth', { api_key: init.api_key })).auth_token;
    const account = init.account_id;
    const agent = (await api('PUT', `/v2/accounts/${account}/users`, { username: 'agent', password: 'pw' }, token)).data.id;
    const quiet = (await api('PUT', `/v2/accounts/${account}/queues`, { name: 'No URLs' }, token)).data.id;
    const notifying = (await api('PUT', `/v2/accounts/${account}/queues`, { name: 'Notifying', notifications: { all: `${sink.url}/q`, method: 'post' } }, token)).data.id;

    console.log(`${calls} queue_call simulations, ${concurrency} in flight, on tel serve (2 notifications each when the queue has a URL)`);
    await simulate(pool, token, account, quiet, agent, 'warm-');
    const base = await simulate(pool, token, account, quiet, agent, 'base-');
    const run = await simulate(pool, token, account, notifying, agent, 'run-');
    await sink.waitFor(2 * calls, 120_000);
    const allDone = Math.max(...sink.arrived.values());
    const lat = [...run.answered].map(([id, t]) => sink.arrived.get(`${id}/pickup`) - t).sort((a, b) => a - b);
    const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))];
    const rate = (r) => (calls / r.ms) * 1000;
    console.log(`baseline (no URLs)  ${rate(base).toFixed(0).padStart(7)} simulations/s   ${base.errors} errors`);
    console.log(`with notifications  ${rate(run).toFixed(0).padStart(7)} simulations/s   ${run.errors} errors`);
    console.log(`ratio               ${(rate(run) / rate(base)).toFixed(2)} of the baseline`);
    const spanMs = allDone - run.started;
    console.log(`delivered           ${2 * calls} notifications in ${spanMs.toFixed(0)} ms (${((2 * calls * 1000) / spanMs).toFixed(0)}/s), the last ${(allDone - Math.max(...run.answered.values())).toFixed(0)} ms after the last simulation answered`);
    console.log(`pickup latency      p50 ${pct(50).toFixed(1)} ms   p99 ${pct(99).toFixed(1)} ms   (simulation answered → notification at the sink)`);
    await pool.close();
  } finally {
    server?.kill('SIGTERM');
    await sink.close();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (server?.kill('SIGTERM'), process.exit(130)));
main().catch((err) => {
  console.error(`benchmark failed: ${err.message}`);
  server?.kill('SIGTERM');
  process.exit(1);
});
