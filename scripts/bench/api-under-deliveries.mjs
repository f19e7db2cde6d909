// The API stays responsive while deliveries flow at full speed: 32 clients fire simulated calls
// (each `channel_create` delivered as JSON to a sink in its own process) while 4 others send
// authenticated `GET /v2/accounts/{id}`. With taskset, tel runs on the first CPU and everything
// else on the second (what tel does with one core). Target: GET p99 under 20 ms.
//
//   npx node scripts/bench/api-under-deliveries.mjs [--seconds 8] [--firing 32] [--readers 4] [--warmup 4]
// (--warmup: seconds of firing before the measured window, so that it measures a server at full
// speed: in its first seconds a new server's hot code is still being compiled by V8, on the same
// core, and GETs then wait longer — p99 23-27 ms with --warmup 1 where 16-20 ms with 4)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, loadGet, pin, pinned, runMain, startCountingSink, startProcess, stopAll } from './lib/http.mjs';

const TARGET_P99_MS = 20;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    firing: { type: 'string', default: '32' },
    readers: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '4' },
  },
});
const seconds = Number(opts.seconds);
const firing = Number(opts.firing);
const readers = Number(opts.readers);
const warmupSeconds = Number(opts.warmup);


async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-'));
  try {
    pin(1, process.pid);
    const sink = await startCountingSink(dir);
    const { port, delivered } = sink;

    const db = join(dir, 'bench.db');
    const init = JSON.parse(
      execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass'], { cwd: root, encoding: 'utf8' }),
    );
    const tel = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    pin(0, tel.child.pid);
    const auth = await (await fetch(`${tel.url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: init.api_key } }) })).json();
    const headers = { 'content-type': 'application/json', 'x-auth-token': auth.auth_token };
    const account = init.account_id;
    const hook = await fetch(`${tel.url}/v2/accounts/${account}/webhooks`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ data: { name: 'bench', uri: `http://127.0.0.1:${port}/calls`, hook: 'channel_create', format: 'json' } }),
    });
    if (hook.status !== 201) throw new Error(`creating the hook answered ${hook.status}`);

    const pool = new Pool(tel.url, { connections: firing, pipelining: 1 });
    let stop = false;
    let fired = 0;
    const body = JSON.stringify({ data: { kind: 'call', direction: 'inbound', caller_id_number: '+14155550100', answer: false } });
    const fire = Promise.all(
      Array.from({ length: firing }, async () => {
        while (!stop) {
          const r = await pool.request({ path: `/v2/accounts/${account}/simulations`, method: 'PUT', headers, body });
          await r.body.dump();
          fired += 1;
        }
      }),
    );
    // firing reaches full speed (and V8 compiles the hot code), then the measured window
    await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
    const before = await delivered();
    const firedBefore = fired;
    const get = await loadGet(tel.url, `/v2/accounts/${account}`, { 'x-auth-token': auth.auth_token }, { connections: readers, ms: seconds * 1000, latencies: true });
    const deliveries = ((await delivered()) - before) / seconds;
    const fireRate = (fired - firedBefore) / seconds;
    stop = true;
    await fire;
    await pool.close();
    sink.child.kill();
    const ok = get.errors === 0 && get.p99 < TARGET_P99_MS;
    console.log(
      `· ${pinned ? 'tel on CPU 0, the rest on CPU 1' : 'not pinned'}: ${Math.round(fireRate)} calls/s fired, ${Math.round(deliveries)} deliveries/s; ` +
        `GET ${Math.round(get.rps)}/s, p50 ${get.p50.toFixed(1)} ms, p99 ${get.p99.toFixed(1)} ms (target < ${TARGET_P99_MS})`,
    );
    console.log(
      JSON.stringify({
        bench: 'api-under-deliveries',
        ok,
        pinned,
        warmup_s: warmupSeconds,
        fired_per_s: Math.round(fireRate),
        deliveries_per_s: Math.round(deliveries),
        get_per_s: Math.round(get.rps),
        get_p50_ms: Number(get.p50.toFixed(1)),
        get_p99_ms: Number(get.p99.toFixed(1)),
        get_errors: get.errors,
      }),
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
