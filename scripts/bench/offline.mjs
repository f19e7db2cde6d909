// Wall time of everyday offline commands of the single executable on a small database: median
// of 10 runs each, beside `node -e 0` on the same Node. Target: each at most 0.15 s. Also how
// long `tel serve` takes to listen (from its start to its "listening" line), median of 10.
//
//   npm run build && npx node scripts/bench/offline.mjs     (TEL_BIN=another/tel to measure another build)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.TEL_BIN || join(root, 'dist/tel');
const dir = mkdtempSync(join(tmpdir(), 'tel-bench-offline-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'small.db');
const run = (args) => execFileSync(bin, [...args, '--db', db], { encoding: 'utf8' });
const account = JSON.parse(run(['init', '--account', 'Lab', '--username', 'admin', '--password', 'secret-pass'])).account_id;
run(['webhooks', 'create', '--account', account, '--name', 'CRM', '--uri', 'http://127.0.0.1:9/x', '--hook', 'channel_create']);

function median(cmd, args) {
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(cmd, args, { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return times.sort((a, b) => a - b)[5];
}

const commands = {
  '--help': ['--help'],
  'restrictions test': ['restrictions', 'test', `/v2/accounts/${account}/devices`, 'GET', '--account', account, '--db', db],
  'webhooks list': ['webhooks', 'list', '--account', account, '--db', db],
  'config get': ['config', 'get', 'webhooks', '--db', db],
};
/** Seconds from starting `tel serve` on the database to its "listening" line; then stops it. */
function untilListening() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const server = spawn(bin, ['serve', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let listened;
    server.stdout.on('data', (d) => {
      out += d;
      if (listened !== undefined || !/listening on/.test(out)) return;
      listened = Number(process.hrtime.bigint() - t0) / 1e9;
      server.kill('SIGTERM');
    });
    server.on('exit', (code) => (listened === undefined ? reject(new Error(`tel serve exited (${code}) before listening`)) : resolve(listened)));
  });
}

const result = { node_s: Number(median(process.execPath, ['-e', '0']).toFixed(3)) };
for (const [name, args] of Object.entries(commands)) result[name] = Number(median(bin, args).toFixed(3));
const listening = [];
for (let i = 0; i < 10; i++) listening.push(await untilListening());
for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(20)} ${v.toFixed(3)} s`);
const serveS = Number(listening.sort((a, b) => a - b)[5].toFixed(3));
console.log(`${'serve (listening)'.padEnd(20)} ${serveS.toFixed(3)} s`);
const ok = Object.entries(result).every(([k, v]) => k === 'node_s' || v <= 0.15);
console.log(JSON.stringify({ bench: 'offline-commands', ok, median_s: result, serve_listening_s: serveS }));
