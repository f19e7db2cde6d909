// A bulk number job of 100,000 numbers through a real `tel serve`: numbers per second, the
// ratio against inserting the same rows into SQLite directly in the same run, and the p99 of
// authenticated GETs sent while the job runs.
//   npx node scripts/bench/jobs.mjs [--numbers 100000] [--clients 4]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundle } from '../bundle.mjs';

const TARGET_PER_SECOND = 100_000;
const TARGET_RATIO = 0.25;
const TARGET_P99_MS = 50;

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const COUNT = opt('numbers', 100_000);
const CLIENTS = opt('clients', 4);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const run = promisify(execFile);
const tel = async (...a) => JSON.parse((await run(process.execPath, [bin, ...a, '--json'])).stdout);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (n) => Math.round(n).toLocaleString('en-US');

function serve(db) {
  const child = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((res, rej) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /tel listening on (http:\/\/\S+)/.exec(out);
      if (m) res({ url: m[1], child });
    });
    child.on('exit', (code) => rej(new Error(`tel serve exited with ${code}`)));
  });
}

async function api(url, method, path, token, data) {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
    body: data === undefined ? undefined : JSON.stringify({ data }),
  });
  const body = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Authenticated GETs in a loop until `stop()`; each sample is [start ms, duration ms]. */
async function load(url, token, paths, stop, samples) {
  for (let i = 0; !stop(); i++) {
    const path = paths[i % paths.length];
    const t0 = performance.now();
    const res = await fetch(url + path, { headers: { 'X-Auth-Token': token } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    samples.push([performance.timeOrigin + t0, performance.now() - t0]);
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Inserts the rows the job wrote into a fresh database of the same schema: the direct baseline. */
function baseline(dir, serverDb, jobId, jobSeq) {
  const src = new DatabaseSync(serverDb, { readOnly: true });
  const ddl = src
    .prepare("SELECT sql FROM sqlite_master WHERE tbl_name IN ('phone_numbers', 'resource_job_results') AND sql IS NOT NULL")
    .all()
    .map((r) => r.sql);
  const numbers = src.prepare('SELECT * FROM phone_numbers WHERE job_id = ?').all(jobId);
  const results = src.prepare('SELECT * FROM resource_job_results WHERE job_seq = ? ORDER BY idx').all(jobSeq);
  src.close();
  const db = new DatabaseSync(join(dir, 'baseline.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  for (const sql of ddl) db.exec(sql);
  const insNumber = db.prepare('INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insResult = db.prepare('INSERT INTO resource_job_results (job_seq, idx, number, reason, message) VALUES (?, ?, ?, ?, ?)');
  const t0 = performance.now();
  db.exec('BEGIN');
  for (const n of numbers) insNumber.run(n.number, n.account_id, n.resource_id, n.state, n.job_id, n.created, n.modified);
  const tNumbers = performance.now();
  for (const r of results) insResult.run(r.job_seq, r.idx, r.number, r.reason, r.message);
  db.exec('COMMIT');
  const t1 = performance.now();
  db.close();
  return { sameRows: (results.length * 1000) / (t1 - t0), numbersOnly: (numbers.length * 1000) / (tNumbers - t0) };
}

await bundle();
const dir = mkdtempSync(join(tmpdir(), 'tel-bench-jobs-'));
const db = join(dir, 'tel.db');
let server;
try {
  const init = await tel('init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass');
  const resource = await tel('resources', 'create', 'Carrier', '--db', db, '--account', init.account_id, '--gateway', 'gw.example.net');
  server = await serve(db);
  const { url } = server;
  const token = (await api(url, 'PUT', '/v2/api_auth', undefined, { api_key: init.api_key })).auth_token;
  const acct = `/v2/accounts/${init.account_id}`;
  const paths = [acct, `${acct}/resources`, `${acct}/resources/${resource.id}`, `${acct}/resources/jobs?page_size=5`, `${acct}/phone_numbers?page_size=20`];
  for (let i = 0; i < 50; i++) await fetch(url + paths[i % paths.length], { headers: { 'X-Auth-Token': token } }).then((r) => r.arrayBuffer());

  const numbers = Array.from({ length: COUNT }, (_, i) => `+1${String(2_000_000_000 + i * 7)}`);
  const samples = [];
  let stopping = false;
  const clients = Array.from({ length: CLIENTS }, () => load(url, token, paths, () => stopping, samples));
  await sleep(200);
  const putAt = Date.now();
  const created = await api(url, 'PUT', `${acct}/resources/jobs`, token, { numbers, resource_id: resource.id });
  const putMs = Date.now() - putAt;
  const reader = new DatabaseSync(db, { readOnly: true });
  const row = () => reader.prepare('SELECT seq, status, started, modified, successes, failures FROM resource_jobs WHERE id = ?').get(created.data.id);
  let job = row();
  for (let i = 0; i < 6000 && job.status !== 'complete' && job.status !== 'failed'; i++) {
    await sleep(10);
    job = row();
  }
  const doneAt = Date.now();
  stopping = true;
  await Promise.all(clients);
  reader.close();
  if (job.status !== 'complete' || job.successes !== COUNT) throw new Error(`job ended ${job.status} with ${job.successes} successes`);

  const runMs = job.modified - job.started;
  const rate = (COUNT * 1000) / runMs;
  const during = samples.filter(([at]) => at >= job.started && at <= job.modified).map(([, d]) => d).sort((a, b) => a - b);
  const all = samples.map(([, d]) => d).sort((a, b) => a - b);
  const base = baseline(dir, db, created.data.id, job.seq);
  const ratio = rate / base.sameRows;

  console.log(`job of ${fmt(COUNT)} numbers (batches of 1,000), PUT answered in ${fmt(putMs)} ms, executed in ${fmt(runMs)} ms`);
  console.log(`executor                              ${fmt(rate).padStart(10)} numbers/s   (end to end from the PUT: ${fmt((COUNT * 1000) / (doneAt - putAt))}/s)`);
  console.log(`baseline: same rows, direct inserts   ${fmt(base.sameRows).padStart(10)} numbers/s   ratio ${ratio.toFixed(2)}`);
  console.log(`baseline: phone_numbers rows only     ${fmt(base.numbersOnly).padStart(10)} numbers/s   ratio ${(rate / base.numbersOnly).toFixed(2)}`);
  if (during.length) {
    console.log(`GETs while the job ran (${CLIENTS} clients): ${fmt(during.length)} requests, p50 ${pct(during, 50).toFixed(1)} ms, p99 ${pct(during, 99).toFixed(1)} ms, max ${during.at(-1).toFixed(1)} ms`);
  }
  console.log(`GETs over the whole run: ${fmt(all.length)} requests, p99 ${pct(all, 99).toFixed(1)} ms`);
  const p99 = during.length ? pct(during, 99) : Infinity;
  const ok = rate >= TARGET_PER_SECOND && ratio >= TARGET_RATIO && p99 < TARGET_P99_MS;
  console.log(
    ok
      ? `PASS: ≥ ${fmt(TARGET_PER_SECOND)} numbers/s, ratio ≥ ${TARGET_RATIO}, GET p99 < ${TARGET_P99_MS} ms`
      : `FAIL: targets are ≥ ${fmt(TARGET_PER_SECOND)} numbers/s, ratio ≥ ${TARGET_RATIO}, GET p99 < ${TARGET_P99_MS} ms`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  if (server) {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
}
