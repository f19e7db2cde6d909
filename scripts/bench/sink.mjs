// Requests per second `tel sink` answers while recording every one in the database file (signed
// deliveries of a real hook: each judged with the hook's secret, each a row), beside a bare
// node:http server answering the same bytes in this run (for scale: it records nothing); then
// checks that every request answered is a row. Target: 12,000 requests/s, more than a `tel serve`
// delivers (scripts/bench/webhooks.mjs), so that in a lab the sink is never what holds tel back.
//
//   npx node scripts/bench/sink.mjs [--seconds 5] [--connections 32]
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { TEL_NODE_FLAGS, loadGet, loadOptions, runMain, startProcess, stopAll } from './lib/http.mjs';

const TARGET_PER_SECOND = 12_000;
const WARMUP_MS = 1_000;
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { seconds, connections } = loadOptions('scripts/bench/sink.mjs', { seconds: '5', connections: '32' });

/** The bare baseline: node:http answering every request as the sink does, with nothing recorded. */
const bareServerSource = `
import { createServer } from 'node:http';
const body = JSON.stringify({ status: 200, by: 'default: ok' });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log('bare listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-sink-'));
  const tel = (...args) => execFileSync(process.execPath, ['bin/tel.js', ...args, '--db', join(dir, 'bench.db')], { cwd: root, encoding: 'utf8' });
  try {
    const init = JSON.parse(tel('init', '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass'));
    const hook = JSON.parse(
      tel('webhooks', 'create', '--account', init.account_id, '--name', 'Bench', '--uri', 'http://127.0.0.1:9/x', '--hook', 'channel_create', '--secret', SECRET, '--json'),
    );
    const sink = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'sink', '--db', join(dir, 'bench.db'), '--port', '0'], { cwd: root });
    // the sink prints a line per request: drained, as a terminal would take them
    sink.child.stdout.resume();
    const bare = await startProcess(['--input-type=module', '-e', bareServerSource], { cwd: root });

    // a delivery as tel sends it: JSON, its hook's and event's headers, signed (timestamp of now)
    const body = JSON.stringify({ hook_event: 'channel_create', call_id: 'bench@tel', caller_id_number: '+14155550100', account_id: init.account_id, padding: 'x'.repeat(400) });
    const ts = String(Math.floor(Date.now() / 1000));
    const mac = createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef')).update(`evt.${ts}.${body}`).digest('base64');
    const headers = {
      'content-type': 'application/json',
      'x-hook-id': hook.id,
      'x-account-id': init.account_id,
      'x-event-id': 'evt',
      'webhook-id': 'evt',
      'webhook-timestamp': ts,
      'webhook-signature': `v1,${mac}`,
    };
    console.log(`POST of ${body.length} bytes, signed, ${connections} connections, ${seconds} s each, after ${WARMUP_MS / 1000} s warm-up`);
    const run = (url, ms) => loadGet(url, '/bench', headers, { connections, ms, latencies: true, method: 'POST', body });
    const warm = await run(sink.url, WARMUP_MS);
    const t = await run(sink.url, seconds * 1000);
    await run(bare.url, WARMUP_MS);
    const b = await run(bare.url, seconds * 1000);
    stopAll();
    await new Promise((r) => sink.child.once('exit', r));

    const db = new DatabaseSync(join(dir, 'bench.db'), { readOnly: true });
    const rows = db.prepare("SELECT COUNT(*) AS n, SUM(verdict = 'valid') AS valid FROM sink_requests").get();
    db.close();
    const answered = warm.done - warm.errors + t.done - t.errors;
    const row = (name, r) =>
      `${name.padEnd(10)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   ${r.errors} errors / ${r.done}`;
    const ratio = t.rps / b.rps;
    console.log(row('tel sink', t));
    console.log(row('bare http', b));
    console.log(`tel sink   ${t.rps.toFixed(0)} req/s (target >= ${TARGET_PER_SECOND}): ${t.rps >= TARGET_PER_SECOND ? 'ok' : 'BELOW TARGET'}; ${ratio.toFixed(2)} of the bare server`);
    console.log(`recorded   ${rows.n} rows for ${answered} requests answered (${rows.valid} valid): ${rows.n === answered && rows.valid === rows.n ? 'ok' : 'MISSING ROWS'}`);
  } finally {
    stopAll();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
