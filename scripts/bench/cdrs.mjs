// CDR listings at a lab's size: an account with 100,000 CDRs (50,000 bridged calls over the last
// 30 days, two legs each; a tenth of them a user's, from one device) beside the baseline of the
// same run, 100,000 webhook attempts of one account (the listing `scale.mjs` already holds to its
// index). A real `tel serve` answers; for each listing the first page (50 rows, median of 5), a
// page deep in the listing (the last, median of 5) and a walk of every page are timed, with the
// server's own view of its event loop (lib/loop-delay.cjs). Ratios are against the attempts
// listing measured in the same run. Prints a table, then one JSON line.
//   npx node scripts/bench/cdrs.mjs [--scale 1] [--keep]
// --scale 0.1 builds a tenth of the rows (a quick look); --keep leaves the database for inspection.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { bundle } from '../bundle.mjs';
import { client, loopDelay, measureListing, runMain, startProcess, stopAll, TEL_NODE_FLAGS } from './lib/http.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SCALE = opt('scale', 1);
const KEEP = args.includes('--keep');
const CALLS = Math.max(10, Math.round(50_000 * SCALE));
const ATTEMPTS = CALLS * 2;
const PAGE = 50;
const GREGORIAN = 62_167_219_200;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const run = promisify(execFile);
const hex = (n = 16) => randomBytes(n).toString('hex');
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Writes the lab's rows directly: CDRs copied from the two legs of a call the API simulated, and the baseline's attempts. */
function seed(dbFile, accountId, model, user, device, hookId) {
  const db = new DatabaseSync(dbFile, { timeout: 10_000 });
  const now = Date.now();
  const span = 30 * 86_400_000;
  db.exec('BEGIN IMMEDIATE');
  const insert = db.prepare(`INSERT INTO cdrs (account_id, id, created, owner_id, authorizing_id, interaction_id, interaction_time, channel_time, first_leg, doc)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (let i = 0; i < CALLS; i++) {
    const at = now - span + Math.floor((i / CALLS) * span);
    const mine = i % 10 === 0;
    const interaction = `${Math.floor(at / 1000) + GREGORIAN}-${hex(4)}`;
    const month = new Date(at).toISOString().slice(0, 7).replace('-', '');
    const a = `${hex()}@bench`;
    const b = `${hex()}@bench`;
    for (const [leg, callId, other, first] of [[model.a, a, b, 1], [model.b, b, a, 0]]) {
      const ccvs = { ...leg.custom_channel_vars, bridge_id: a };
      if (mine) Object.assign(ccvs, { owner_id: user, authorizing_id: device, authorizing_type: 'device' });
      else for (const k of ['owner_id', 'authorizing_id', 'authorizing_type']) delete ccvs[k];
      const doc = { ...leg, call_id: callId, other_leg_call_id: other, interaction_id: interaction, custom_channel_vars: ccvs, timestamp: Math.floor(at / 1000) + GREGORIAN };
      delete doc.id;
      insert.run(accountId, `${month}-${callId}`, at, mine ? user : null, mine ? device : null, interaction, Math.floor(at / 1000) + GREGORIAN, (at - 30_000) * 1000 + (first ? 0 : 1), first, JSON.stringify(doc));
    }
  }
  const attempt = db.prepare(`INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, source_id, source_name, event_name, uri, method, result,
      reason, client_error, http_status, latency_ms, try, retries_left, req_headers, req_body, resp_headers, resp_body, created)
    VALUES (?, ?, 'webhook', ?, ?, 'Hook', 'channel_destroy', 'http://127.0.0.1:9/h', 'post', 'success', NULL, NULL, 200, 12, 1, 2, '{}', ?, '{}', 'ok', ?)`);
  const body = JSON.stringify({ ...model.a, hook_event: 'channel_destroy' });
  for (let i = 0; i < ATTEMPTS; i++) attempt.run(i + 1, hex(5), accountId, hookId, body, now - 6 * 86_400_000 + Math.floor((i / ATTEMPTS) * 6 * 86_400_000));
  db.exec('COMMIT');
  db.close();
}

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('run it with `npx node scripts/bench/cdrs.mjs` (Node 24)');
  await bundle({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'tel-cdrs-'));
  const dbFile = join(dir, 'cdrs.db');
  const results = { bench: 'cdrs', ok: true, scale: SCALE, page_size: PAGE, cdrs: CALLS * 2, attempts: ATTEMPTS };
  try {
    const init = JSON.parse((await run(process.execPath, [...TEL_NODE_FLAGS, bin, 'init', '--account', 'Lab', '--username', 'admin', '--password', 'admin-pass', '--json', '--db', dbFile])).stdout);
    const { child, url } = await startProcess([...TEL_NODE_FLAGS, '--require', join(root, 'scripts/bench/lib/loop-delay.cjs'), bin, 'serve', '--db', dbFile, '--port', '0']);
    const loop = loopDelay(child);
    const token = (await client(url)('PUT', '/v2/api_auth', { api_key: init.api_key })).body.auth_token;
    const api = client(url, token);
    const put = async (path, data) => {
      const r = await api('PUT', path, data);
      if (r.status !== 201) throw new Error(`PUT ${path}: ${r.status} ${r.text.slice(0, 200)}`);
      return r.body.data;
    };
    const account = (await put(`/v2/accounts/${init.account_id}`, { name: 'Calls' })).id;
    const user = (await put(`/v2/accounts/${account}/users`, { username: 'caller', first_name: 'C', last_name: 'Aller' })).id;
    const device = (await put(`/v2/accounts/${account}/devices`, { name: 'Desk', owner_id: user })).id;
    const hook = (await put(`/v2/accounts/${account}/webhooks`, { name: 'CDRs', uri: 'http://127.0.0.1:9/h', hook: 'channel_destroy', enabled: false })).id;
    // the model: the two legs of a call the simulation wrote
    const [first] = (await put(`/v2/accounts/${account}/simulations`, { kind: 'call' })).events;
    const legs = (await api('GET', `/v2/accounts/${account}/cdrs?ascending=true`)).body.data;
    const full = async (id) => (await api('GET', `/v2/accounts/${account}/cdrs/${encodeURIComponent(id)}`)).body.data;
    const model = { a: await full(legs.find((l) => l.call_id === first.call_id).id), b: await full(legs.find((l) => l.call_id !== first.call_id).id) };
    const t0 = performance.now();
    seed(dbFile, account, model, user, device, hook);
    results.seed_s = round((performance.now() - t0) / 1000);

    const a = `/v2/accounts/${account}`;
    const interaction = model.a.interaction_id;
    results.listings = {
      attempts_baseline: await measureListing(api, loop, `${a}/webhooks/attempts`, { page: PAGE }),
      cdrs: await measureListing(api, loop, `${a}/cdrs`, { page: PAGE }),
      cdrs_ascending: await measureListing(api, loop, `${a}/cdrs?ascending=true`, { page: PAGE }),
      cdrs_user: await measureListing(api, loop, `${a}/users/${user}/cdrs`, { page: PAGE }),
      cdrs_device: await measureListing(api, loop, `${a}/devices/${device}/cdrs`, { page: PAGE }),
      interactions: await measureListing(api, loop, `${a}/cdrs/interaction`, { page: PAGE }),
      legs: await measureListing(api, loop, `${a}/cdrs/legs/${interaction}`, { page: PAGE }),
    };
    const base = results.listings.attempts_baseline;
    results.ratios = Object.fromEntries(
      Object.entries(results.listings)
        .filter(([name]) => name !== 'attempts_baseline' && name !== 'legs')
        .map(([name, m]) => [name, { first: round(m.first_ms / base.first_ms, 2), walk_per_page: round(m.walk_ms_per_page / base.walk_ms_per_page, 2) }]),
    );
    const one = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await api('GET', `${a}/cdrs/${encodeURIComponent(model.a.id)}`);
      one.push(performance.now() - t);
    }
    results.cdr_by_id_ms = round(median(one), 2);
    results.ok = Object.values(results.listings).every((m) => m.rows > 0);
  } finally {
    stopAll();
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`database kept: ${dbFile}`);
  }
  const line = (...cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 22 : 14)).join(''));
  line('listing (50 a page)', 'first ms', 'last ms', 'walk ms/page', 'pages', 'loop max/cpu');
  for (const [name, m] of Object.entries(results.listings)) line(name, m.first_ms, m.last_ms, m.walk_ms_per_page, m.pages, `${m.server_loop_max_ms}/${m.server_held_cpu_ms}`);
  console.log(JSON.stringify(results));
}

runMain(main);
