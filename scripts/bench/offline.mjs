// Wall time of everyday offline commands of the single executable on a small database: median
// of 10 runs each, beside `node -e 0` on the same Node. Target: each at most 0.15 s.
//
//   npm run build && npx node scripts/bench/offline.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'dist/tel');
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
const result = { node_s: Number(median(process.execPath, ['-e', '0']).toFixed(3)) };
for (const [name, args] of Object.entries(commands)) result[name] = Number(median(bin, args).toFixed(3));
for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(20)} ${v.toFixed(3)} s`);
const ok = Object.entries(result).every(([k, v]) => k === 'node_s' || v <= 0.15);
console.log(JSON.stringify({ bench: 'offline-commands', ok, median_s: result }));
