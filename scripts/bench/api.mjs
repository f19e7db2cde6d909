// Requests per second and latency of an authenticated `GET /v2/accounts/{id}` on a real
// `tel serve`, against a bare node:http server answering the same bytes, both in this run.
// Targets: at least 0.5 of the bare server's requests/s, p99 under 20 ms, server RSS under 150 MB.
//
//   npx node scripts/bench/api.mjs [--seconds 10] [--connections 50]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEL_NODE_FLAGS, loadGet, loadOptions, memoryMb, runMain, startProcess, stopAll } from './lib/http.mjs';

const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 20;
const TARGET_RSS_MB = 150;
const WARMUP_MS = 1_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { seconds, connections } = loadOptions('scripts/bench/api.mjs', { seconds: '10', connections: '50' });

/** The bare baseline: node:http answering every request with the given status, headers and body. */
const bareServerSource = `
import { createServer } from 'node:http';
const { status, headers, body } = JSON.parse(process.env.BENCH_RESPONSE);
const bytes = Buffer.from(body, 'base64');
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(status, { ...headers, 'content-length': bytes.length });
  res.end(bytes);
});
server.listen(0, '127.0.0.1', () => console.log('bare listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-'));
  try {
    const db = join(dir, 'bench.db');
    const init = JSON.parse(
      execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass'], {
        cwd: root,
        encoding: 'utf8',
      }),
    );
    const tel = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });

    const auth = await fetch(`${tel.url}/v2/api_auth`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: { api_key: init.api_key } }),
    });
    const token = (await auth.json()).auth_token;
    if (auth.status !== 201 || !token) throw new Error(`api_auth answered ${auth.status}`);
    const path = `/v2/accounts/${init.account_id}`;
    const headers = { 'x-auth-token': token };

    // The baseline answers what tel answers: same status, same body bytes, same headers.
    const sample = await fetch(tel.url + path, { headers });
    const body = Buffer.from(await sample.arrayBuffer());
    if (sample.status !== 200) throw new Error(`GET ${path} answered ${sample.status}: ${body}`);
    const copied = {};
    for (const [k, v] of sample.headers) if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) copied[k] = v;
    const bare = await startProcess(['--input-type=module', '-e', bareServerSource], {
      cwd: root,
      env: { BENCH_RESPONSE: JSON.stringify({ status: sample.status, headers: copied, body: body.toString('base64') }) },
    });

    console.log(`GET ${path.replace(init.account_id, '{id}')} (${body.length} bytes), ${connections} connections, ${seconds} s each, after ${WARMUP_MS / 1000} s warm-up`);
    const run = (url, ms) => loadGet(url, path, headers, { connections, ms, latencies: true });
    await run(tel.url, WARMUP_MS);
    const t = await run(tel.url, seconds * 1000);
    const mem = memoryMb(tel.child.pid);
    await run(bare.url, WARMUP_MS);
    const b = await run(bare.url, seconds * 1000);

    const row = (name, r) =>
      `${name.padEnd(10)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   ${r.errors} errors / ${r.done}`;
    const mark = (ok) => (ok ? 'ok' : 'BELOW TARGET');
    const ratio = t.rps / b.rps;
    console.log(row('tel', t));
    console.log(row('bare http', b));
    console.log(`ratio      ${ratio.toFixed(2)} of the bare server (target >= ${TARGET_RATIO}): ${mark(ratio >= TARGET_RATIO)}`);
    console.log(`p99        ${t.p99.toFixed(2)} ms (target < ${TARGET_P99_MS} ms): ${mark(t.p99 < TARGET_P99_MS)}`);
    console.log(`tel RSS    ${mem.rss.toFixed(0)} MB, peak ${mem.peak.toFixed(0)} MB (target < ${TARGET_RSS_MB} MB): ${mark(mem.rss < TARGET_RSS_MB)}`);
    if (t.errors + b.errors > 0) console.log('some requests failed: the figures above are not comparable.');
  } finally {
    stopAll();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
