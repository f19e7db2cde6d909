// What Kazoo's other modules cost at a lab's sizes: an account with 10,000 users (half of them
// agents, all in one directory), 10,000 devices each a user's hotdesk, 10,000 callflows reaching
// them (the contact list), 10,000 entries of a list, 36,000 resource selectors (Kazoo's docs show
// a name with 36,039) and 10,000 rates. A real `tel serve` answers; for each request the median of
// three runs, and the server's own view of its event loop (lib/loop-delay.cjs): the most CPU its
// main thread spent without a turn of the loop, which says whether anything held it.
// Prints a table, then one JSON line.
//   npx node scripts/bench/crossbar.mjs [--scale 1]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { bundle } from '../bundle.mjs';
import { runMain, startProcess, stopAll, TEL_NODE_FLAGS } from './lib/http.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--scale');
const SCALE = at >= 0 ? Number(args[at + 1]) : 1;
const n = (count) => Math.max(1, Math.round(count * SCALE));
const SIZES = { users: n(10_000), selectors: n(36_000), rates: n(10_000) };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const run = promisify(execFile);
const id = () => randomBytes(16).toString('hex');
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The lab's rows, written straight into the file (its triggers keep the lookups, as a server's writes would). */
function fill(file, account) {
  const db = new DatabaseSync(file);
  db.exec('BEGIN');
  const doc = db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, '{}', '1-x', ?, ?)");
  let created = Date.now();
  const put = (kind, body, owner = account, docId = id()) => (doc.run(docId, kind, owner, JSON.stringify(body), created, created++), docId);
  const directory = put('directory', { name: 'Everyone' });
  const list = put('list', { name: 'Callers' });
  const queue = put('queue', { name: 'Support' });
  for (let i = 0; i < SIZES.users; i++) {
    const user = put('user', { first_name: 'User', last_name: String(i), directories: { [directory]: id() }, ...(i % 2 ? { queues: [queue] } : {}) });
    put('device', { name: `Phone ${i}`, hotdesk: { users: { [user]: {} } } });
    put('callflow', { numbers: [String(10_000 + i), `+1415${String(i).padStart(7, '0')}`], flow: { module: 'user', data: { id: user } } });
    put('list_entry', { list_id: list, number: String(i) });
  }
  for (let i = 0; i < SIZES.selectors; i++) put('resource_selector', { name: `lcr${i % 3}`, resource: `carrier${i % 40}`, selector: String(1_000 + i) });
  for (let i = 0; i < SIZES.rates; i++) put('rate', { prefix: 1_000_000 + i, rate_cost: 0.01, routes: ['^\\+?1.+$'] }, 'ratedeck:ratedeck', `XX-${1_000_000 + i}`);
  put('rate', { prefix: 1, rate_cost: 0.02, routes: ['^\\+?1.+$'] }, 'ratedeck:ratedeck', 'XX-1');
  db.exec('COMMIT');
  db.close();
  return { directory, list };
}

/** The server's own view of its event loop: `span()` starts one; its end answers the most CPU the main thread held (ms). */
function loopDelay(child) {
  let pending;
  let buffer = '';
  child.stderr.on('data', (d) => {
    buffer += d;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const m = /^loop-delay ([\d.]+) ([\d.]+)$/.exec(buffer.slice(0, at));
      buffer = buffer.slice(at + 1);
      if (m && pending) pending(Number(m[2])), (pending = undefined);
    }
  });
  return () => new Promise((r) => ((pending = r), child.kill('SIGUSR2')));
}

async function main() {
  await bundle({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-crossbar-'));
  try {
    const file = join(dir, 'tel.db');
    const init = JSON.parse((await run(process.execPath, [...TEL_NODE_FLAGS, bin, 'init', '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass', '--db', file, '--json'])).stdout);
    const account = init.account_id;
    const t0 = performance.now();
    const { directory, list } = fill(file, account);
    const filledS = round((performance.now() - t0) / 1000);
    const { child, url } = await startProcess(['--require', join(root, 'scripts/bench/lib/loop-delay.cjs'), ...TEL_NODE_FLAGS, bin, 'serve', '--port', '0', '--db', file]);
    const held = loopDelay(child);
    const token = (await (await fetch(`${url}/v2/api_auth`, { method: 'PUT', body: JSON.stringify({ data: { api_key: init.api_key } }) })).json()).auth_token;
    const a = `/v2/accounts/${account}`;
    const cases = [
      ['a directory of every user (its entries)', `${a}/directories/${directory}`],
      ['the contact list of every callflow', `${a}/contact_list`],
      ['agents, first page', `${a}/agents`],
      ['hotdesks, first page', `${a}/hotdesks`],
      ["a list's entries, first page", `${a}/lists/${list}/entries`],
      ['selectors counted by name', `${a}/resource_selectors/name`],
      ["a name's selectors counted by resource", `${a}/resource_selectors/name/lcr1`],
      ['a number rated among the rates', '/v2/rates/number/+14155550100'],
    ];
    // once each first, and time for the validators the server compiles in the background after it starts
    for (const [, path] of cases) await (await fetch(url + path, { headers: { 'X-Auth-Token': token } })).arrayBuffer();
    await new Promise((r) => setTimeout(r, 3000));
    const rows = [];
    for (const [what, path] of cases) {
      const times = [];
      let heldMs = 0;
      let rowsAnswered = 0;
      for (let k = 0; k < 3; k++) {
        await held();
        const t = performance.now();
        const res = await fetch(url + path, { headers: { 'X-Auth-Token': token } });
        const body = await res.json();
        times.push(performance.now() - t);
        heldMs = Math.max(heldMs, await held());
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        rowsAnswered = Array.isArray(body.data) ? body.data.length : Array.isArray(body.data.users) ? body.data.users.length : 1;
      }
      rows.push({ what, rows: rowsAnswered, ms: round(times.sort((x, y) => x - y)[1]), server_held_cpu_ms: round(heldMs) });
    }
    child.kill('SIGTERM');
    console.log(`${SIZES.users} users, devices, callflows and list entries, ${SIZES.selectors} selectors, ${SIZES.rates} rates (written in ${filledS} s)`);
    for (const r of rows) console.log(`${r.what.padEnd(42)} ${String(r.rows).padStart(6)} rows ${String(r.ms).padStart(8)} ms  held the loop ${r.server_held_cpu_ms} ms`);
    console.log(JSON.stringify({ bench: 'crossbar', sizes: SIZES, results: rows }));
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
