// Memory of a real `tel serve` under a seeded run of hostile requests (scripts/fuzz/hostile.mjs:
// bad JSON, deep bodies, megabyte strings, odd paths, unknown tokens, odd query strings, odd
// methods and headers). Prints RSS before, after and at peak, and fails when RSS after the run
// is more than 150 MB above RSS before, or when any request was answered 5xx or not as JSON.
//
//   npx node scripts/fuzz/memory.mjs [--requests 20000] [--seed 1] [--concurrency 16] [--max-string-kib 4096]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEL_NODE_FLAGS, memoryMb, runMain, startProcess, stopAll } from '../bench/lib/http.mjs';
import { fuzz } from './hostile.mjs';

const MAX_GROWTH_MB = 150;
const SETTLE_MS = 10_000;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '16' },
    'max-string-kib': { type: 'string', default: '4096' },
  },
});
const requests = Number(opts.requests);
const seed = Number(opts.seed);
const concurrency = Number(opts.concurrency);
const maxStringKib = Number(opts['max-string-kib']);
if (!(Number.isInteger(requests) && requests > 0) || !Number.isInteger(seed) || !(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= 256) || !(maxStringKib >= 1 && maxStringKib <= 12_288)) {
  console.error('--requests must be a positive whole number, --seed a whole number, --concurrency 1..256 and --max-string-kib 1..12288.');
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-fuzz-'));
  try {
    const db = join(dir, 'fuzz.db');
    const init = JSON.parse(
      execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Fuzz', '--username', 'admin', '--password', 'fuzz-pass'], {
        cwd: root,
        encoding: 'utf8',
      }),
    );
    const { child, url } = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    const port = Number(new URL(url).port);
    const login = await fetch(`${url}/v2/api_auth`, { method: 'PUT', body: JSON.stringify({ data: { api_key: init.api_key } }) });
    const token = (await login.json()).auth_token;
    const target = { token, accountId: init.account_id, maxString: maxStringKib * 1024 };
    // warm up on a few hundred requests of another seed, so start-up allocations are not counted
    await fuzz(port, { ...target, seed: seed + 1_000_000, count: 500, concurrency });
    await sleep(1000);
    const before = memoryMb(child.pid);
    const started = performance.now();
    let peak = before.rss;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryMb(child.pid).rss)), 100);
    const result = await fuzz(port, { ...target, seed, count: requests, concurrency });
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const rightAfter = memoryMb(child.pid);
    // what the process keeps once it is idle again (V8 gives back heap it grew a few seconds later)
    await sleep(SETTLE_MS);
    const after = memoryMb(child.pid);
    // a public endpoint: the fuzz may have rotated the API key or disabled the account its token stood for
    const alive = (await fetch(`${url}/v2/webhooks`)).status === 200;
    const growth = after.rss - before.rss;
    const row = (k, v) => console.log(`${k.padEnd(28)} ${v}`);
    row('requests', `${result.sent} in ${seconds.toFixed(1)} s (seed ${seed})`);
    row('answers by status', JSON.stringify(result.byStatus));
    row('RSS before (MB)', before.rss.toFixed(1));
    row('RSS right after (MB)', rightAfter.rss.toFixed(1));
    row(`RSS ${SETTLE_MS / 1000} s after (MB)`, after.rss.toFixed(1));
    row('RSS peak (MB)', Math.max(peak, after.peak).toFixed(1));
    row('growth (MB, limit 150)', growth.toFixed(1));
    row('5xx / no answer / not JSON', result.problems.length);
    row('server still answers', alive ? 'yes' : 'NO');
    for (const p of result.problems.slice(0, 20)) console.log(`  ${p}`);
    const ok = growth <= MAX_GROWTH_MB && result.problems.length === 0 && alive;
    console.log(
      JSON.stringify({
        bench: 'fuzz-memory',
        requests: result.sent,
        seed,
        rss_before_mb: Number(before.rss.toFixed(1)),
        rss_after_mb: Number(after.rss.toFixed(1)),
        rss_peak_mb: Number(Math.max(peak, after.peak).toFixed(1)),
        growth_mb: Number(growth.toFixed(1)),
        problems: result.problems.length,
        ok,
      }),
    );
    stopAll();
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
