// Memory after hostile bodies sent with a valid token (so that they are read and parsed, not
// refused at 64 KiB): strings up to 5 MB, 10,000-deep nesting, 100,000 keys, sent to document
// writes (devices, an account, users, resources, webhooks), 16 at a time. Prints the server's
// RSS before, right after and each second for 30 s, and fails when RSS right after grew by more
// than 100 MB or is not back within 30 MB of where it started within 30 s.
//
//   npx node scripts/bench/hostile-memory.mjs [--requests 6600] [--concurrency 16] [--seed 1]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, memoryMb, runMain, startProcess, stopAll } from './lib/http.mjs';
import { prng } from '../fuzz/hostile.mjs';

const MAX_GROWTH_MB = 100;
const NEAR_START_MB = 30;
const RECOVERY_S = 30;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '6600' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: '1' },
  },
});
const requests = Number(opts.requests);
const concurrency = Number(opts.concurrency);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One hostile body: a string of up to 5 MB (plain or escaped), 10,000-deep nesting, or 100,000 keys. */
function hostileBody(r) {
  switch (r.int(4)) {
    case 0:
      return JSON.stringify({ data: { name: 'x'.repeat(r.int(5 * 1024 * 1024) + 1) } });
    case 1: {
      const depth = 10_000;
      return `{"data":{"name":"deep","x":${'['.repeat(depth)}1${']'.repeat(depth)}}}`;
    }
    case 2:
      return `{"data":{"name":"keys",${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',')}}}`;
    default:
      return `{"data":{"name":"escaped","x":"${'\\u0041'.repeat(r.int(800_000) + 1)}"}}`;
  }
}

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-hostile-'));
  try {
    const db = join(dir, 'hostile.db');
    const init = JSON.parse(execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Hostile', '--username', 'admin', '--password', 'pw'], { cwd: root, encoding: 'utf8' }));
    const { child, url } = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    const token = (await (await fetch(`${url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: init.api_key } }) })).json()).auth_token;
    const a = init.account_id;
    const targets = [['PUT', `/v2/accounts/${a}/devices`], ['POST', `/v2/accounts/${a}`], ['PUT', `/v2/accounts/${a}/users`], ['PUT', `/v2/accounts/${a}/resources`], ['PUT', `/v2/accounts/${a}/webhooks`]];
    const pool = new Pool(url, { connections: concurrency, headersTimeout: 120_000, bodyTimeout: 120_000 });
    const r = prng(Number(opts.seed));
    const byStatus = {};
    let sent = 0;
    const send = async () => {
      while (sent < requests) {
        sent++;
        const [method, path] = r.pick(targets);
        const res = await pool.request({ method, path, headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: hostileBody(r) });
        await res.body.dump({ limit: Infinity });
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
      }
    };
    // a warm-up of ordinary requests to the same routes (their schemas compiled, their code
    // optimised, a body refused and one stored each), so that what is counted is what the hostile
    // bodies leave
    for (let i = 0; i < 100; i++) {
      for (const [method, path] of targets) {
        for (const data of [{ name: `w${i}`, username: `w${i}`, password: 'pw', uri: 'http://127.0.0.1:9/x', hook: 'channel_destroy', gateways: [] }, { name: 'x'.repeat(300) }]) {
          await (await pool.request({ method, path, headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ data }) })).body.dump();
        }
      }
      await (await pool.request({ method: 'GET', path: `/v2/accounts/${a}`, headers: { 'x-auth-token': token } })).body.dump();
    }
    await sleep(3000);
    const before = memoryMb(child.pid).rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryMb(child.pid).rss)), 100);
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, send));
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const rightAfter = memoryMb(child.pid).rss;
    const memoryNow = async () =>
      Object.fromEntries(
        (await (await fetch(`${url}/metrics`)).text())
          .split('\n')
          .filter((l) => /^(nodejs_|process_resident)/.test(l))
          .map((l) => [l.split(' ')[0].replace(/_bytes$/, ''), Math.round(Number(l.split(' ')[1]) / 1048576)]),
      );
    const rightAfterParts = await memoryNow();
    const trace = [];
    let backAfter;
    for (let s = 1; s <= RECOVERY_S; s++) {
      await sleep(1000);
      const rss = memoryMb(child.pid).rss;
      trace.push(Math.round(rss));
      if (backAfter === undefined && rss - before <= NEAR_START_MB) backAfter = s;
    }
    const alive = (await fetch(`${url}/v2/webhooks`)).status === 200;
    // where the memory is, as the server tells it
    const heap = await memoryNow();
    await pool.close();
    const growth = rightAfter - before;
    const ok = growth <= MAX_GROWTH_MB && backAfter !== undefined && alive && !byStatus[500];
    console.log(`${sent} hostile requests in ${seconds.toFixed(1)} s: ${JSON.stringify(byStatus)}`);
    console.log(`RSS ${before.toFixed(0)} MB before, ${rightAfter.toFixed(0)} right after (+${growth.toFixed(0)}, limit ${MAX_GROWTH_MB}), peak ${peak.toFixed(0)}; each second after: ${trace.join(' ')}`);
    console.log(
      JSON.stringify({
        bench: 'hostile-memory',
        ok,
        requests: sent,
        concurrency,
        rss_before_mb: Math.round(before),
        rss_right_after_mb: Math.round(rightAfter),
        growth_mb: Math.round(growth),
        rss_peak_mb: Math.round(peak),
        back_within_30_mb_after_s: backAfter ?? null,
        rss_30s_after_mb: trace.at(-1),
        by_status: byStatus,
        memory_right_after_mb: rightAfterParts,
        memory_30s_after_mb: heap,
      }),
    );
    if (!ok) process.exitCode = 1;
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
