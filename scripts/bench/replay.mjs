// How `tel diff`'s time grows with a recording's size: a client's requests recorded through `tel record`
// in front of a `tel serve` until the recording holds 100 MB — 300 users made in an account, then
// blocks of a device created, read, changed and removed and the 300 users listed (paginate=false,
// 60 KB) — then its first 25 MB, 50 MB and all of it replayed by `tel diff` against fresh servers
// built from the same lab, each replay's time as tel diff reports it (without its start). Every
// exchange must replay identical; target: the seconds a MB of the largest at most a quarter more
// than the smallest's (time that grows no faster than the size; less is a fixed cost, such as a
// fresh server's warm-up, shared by more MB).
//
//   npx node scripts/bench/replay.mjs [--mb 100]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, runMain, startProcess, stopAll } from './lib/http.mjs';

const USERS = 300;
const MAX_GROWTH = 1.25;
const LAB = `version: 1
account:
  name: Replay
  api_key: replay-bench-key-0123456789abcdef0123456789
`;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({ options: { mb: { type: 'string', default: '100' } } });
const MB = Number(opts.mb);
const SIZES = [MB / 4, MB / 2, MB];
const round = (v) => Math.round(v * 100) / 100;

/** A `tel serve` on a new database built from the lab. */
async function labServer(dir, name) {
  const db = join(dir, `${name}.db`);
  execFileSync(process.execPath, ['bin/tel.js', 'apply', join(dir, 'lab.yaml'), '--db', db], { cwd: root, stdio: 'ignore' });
  return startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
}

/** The recording's first lines up to `mb` MB (whole lines: a client that waits for each answer has its exchanges written in order). */
function prefix(file, mb, out) {
  const text = readFileSync(file, 'utf8');
  let end = 0;
  while (end < text.length && end < mb * 1024 * 1024) end = text.indexOf('\n', end) + 1 || text.length;
  writeFileSync(out, text.slice(0, end));
  return end;
}

async function main() {
  if (!(MB >= 4)) throw new Error('--mb must be 4 or more');
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-replay-'));
  try {
    writeFileSync(join(dir, 'lab.yaml'), LAB);
    const recording = join(dir, 'traffic.jsonl');
    const recorded = await labServer(dir, 'recorded');
    const record = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'record', '--upstream', recorded.url, '--port', '0', '--out', recording], { cwd: root });
    record.child.stdout.resume();
    const pool = new Pool(record.url, { connections: 1 });
    const call = async (method, path, token, data) => {
      const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) }, body: data === undefined ? undefined : JSON.stringify({ data }) });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
      return JSON.parse(text);
    };
    const started = performance.now();
    const login = await call('PUT', '/v2/api_auth', undefined, { api_key: 'replay-bench-key-0123456789abcdef0123456789' });
    const token = login.auth_token;
    const account = (await call('PUT', `/v2/accounts/${login.data.account_id}`, token, { name: 'Replayed' })).data.id;
    for (let i = 0; i < USERS; i++) await call('PUT', `/v2/accounts/${account}/users`, token, { username: `user${i}`, first_name: 'Replay', last_name: `User ${i}`, email: `user${i}@replay.example` });
    let blocks = 0;
    while (statSync(recording).size < MB * 1024 * 1024) {
      for (let i = 0; i < 20; i++) {
        const device = (await call('PUT', `/v2/accounts/${account}/devices`, token, { name: `phone ${blocks}`, sip: { username: `phone${blocks}` } })).data;
        await call('GET', `/v2/accounts/${account}/devices/${device.id}`, token);
        await call('POST', `/v2/accounts/${account}/devices/${device.id}`, token, { ...device, name: `desk phone ${blocks}` });
        await call('GET', `/v2/accounts/${account}/users?paginate=false`, token);
        await call('DELETE', `/v2/accounts/${account}/devices/${device.id}`, token);
        blocks++;
      }
    }
    await pool.close();
    record.child.kill('SIGTERM');
    await new Promise((r) => record.child.once('exit', r));
    recorded.child.kill('SIGTERM');
    const recordSeconds = (performance.now() - started) / 1000;
    console.log(`recorded ${(statSync(recording).size / 1024 / 1024).toFixed(1)} MB (${blocks} blocks) in ${recordSeconds.toFixed(1)} s`);

    const sizes = [];
    for (const mb of SIZES) {
      const file = join(dir, `first-${mb}.jsonl`);
      const bytes = prefix(recording, mb, file);
      const server = await labServer(dir, `fresh-${mb}`);
      const diff = await new Promise((resolveRun, reject) => {
        const child = spawn(process.execPath, [...TEL_NODE_FLAGS, 'bin/tel.js', 'diff', file, '--against', server.url, '--lab', join(dir, 'lab.yaml'), '--json'], { cwd: root });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('error', reject);
        child.on('close', (code) => resolveRun({ code, out }));
      });
      server.child.kill('SIGTERM');
      const report = JSON.parse(diff.out);
      // the replay's own time (tel diff's start and reading the lab are the same for every size)
      const seconds = report.seconds;
      const row = { mb: round(bytes / 1024 / 1024), exchanges: report.exchanges, identical: report.identical, seconds: round(seconds), seconds_per_mb: round(seconds / (bytes / 1024 / 1024)) };
      sizes.push(row);
      console.log(`${String(row.mb).padStart(6)} MB  ${String(row.exchanges).padStart(6)} exchanges  ${row.seconds.toFixed(1).padStart(6)} s  ${row.seconds_per_mb.toFixed(2)} s/MB  ${row.identical === row.exchanges ? 'all identical' : `${row.exchanges - row.identical} not identical`}`);
    }
    stopAll();
    // the largest's against the smallest's: a smaller one slower a MB is a fixed cost, not growth
    const growth = round(sizes.at(-1).seconds_per_mb / sizes[0].seconds_per_mb);
    const ok = sizes.every((s) => s.identical === s.exchanges) && growth <= MAX_GROWTH;
    console.log(`seconds a MB, largest against smallest: ${growth} (target: at most ${MAX_GROWTH})`);
    console.log(JSON.stringify({ bench: 'replay', ok, load: round(loadavg()[0]), sizes, growth }));
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
