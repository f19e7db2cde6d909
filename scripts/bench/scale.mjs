// What a lab costs at the sizes labs reach: 10,000 accounts (a reseller with 3,000 children and
// 7,000 accounts below them), an account with 10,000 users, devices, callflows and webhooks, and
// 100,000 attempts, numbers and job results. A real `tel serve` answers; for each listing the first
// and the last page (50 rows) and a walk of every page are timed while a second client asks for an
// account every few milliseconds (its worst wait, and the server's own view from lib/loop-delay.cjs:
// the loop's longest delay and the most CPU it spent without a turn, say whether the server froze);
// then every row at once (`paginate=false`, a job's detail), the bulk re-enable down the tree, a user,
// a device and a callflow each refused and created beside 10,000 of its kind, and the CLI over the
// same file (`tel webhooks attempts --limit 0 --json`, `tel jobs show`, `tel watch --once --tail 100`,
// `tel export`, `tel apply` of the unchanged lab from YAML and from JSON (the median of three runs
// each) and of 1,000 new users), with the server's RSS and the write-ahead log left once quiet.
// Prints a table, then one JSON line.
//   npx node scripts/bench/scale.mjs [--scale 1] [--keep]
// --scale 0.1 builds a tenth of every size (a quick look); --keep leaves the database for inspection.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import { bundle } from '../bundle.mjs';
import { client, loopDelay, measureListing, memoryMb, runMain, startAccountProbe, startProcess, stopAll, TEL_NODE_FLAGS } from './lib/http.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SCALE = opt('scale', 1);
const KEEP = args.includes('--keep');
const n = (count) => Math.max(1, Math.round(count * SCALE));
const SIZES = {
  children: n(3000),
  grandchildren: n(7000),
  objects: n(10_000),
  attempts: n(100_000),
  numbers: n(100_000),
  newUsers: n(1000),
};
const PAGE = 50;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const run = promisify(execFile);
const id = () => randomBytes(16).toString('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The MAC address of the bench's device `i` (written with separators, as phones print them). */
const macOf = (i) => `02:00:${[i >>> 24, i >>> 16, i >>> 8, i].map((b) => (b & 255).toString(16).padStart(2, '0')).join(':')}`;
/** The number of the bench's callflow `i`. */
const numberOf = (i) => `+1415${String(i).padStart(7, '0')}`;

/** A `tel` command on the database; answers its stdout, wall time, CPU time (on a shared machine the steadier) and peak RSS (MB). */
async function tel(db, ...argv) {
  const t = performance.now();
  const { stdout, stderr } = await run('/usr/bin/time', ['-f', '%M %U %S', process.execPath, ...TEL_NODE_FLAGS, bin, ...argv, '--db', db], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  const ms = performance.now() - t;
  const [rssKb, user, system] = stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { stdout, ms: round(ms), cpu_ms: round((user + system) * 1000), rss_mb: round(rssKb / 1024) };
}

/** The median (by wall time) of three runs of a `tel` command that changes nothing: one run on a shared machine is noise. */
async function telMedian(db, ...argv) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await tel(db, ...argv));
  return runs.sort((a, b) => a.ms - b.ms)[1];
}

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel(items, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * A second client asking for one account every 5 ms while the bench runs (lib/http.mjs's probe, on
 * a thread of its own). `span()` starts a span and answers the function that ends it with the
 * worst wait (ms) of the span: how long the server made a request wait while something else ran.
 */
async function startProbe(url, token, accountId) {
  const probe = await startAccountProbe(url, token, accountId, 5);
  return {
    span() {
      const started = probe.waits();
      return async () => {
        await started;
        return round(Math.max(0, ...(await probe.waits())));
      };
    },
    stop: probe.stop,
  };
}

/** Peak RSS (MB) of the server while `fn` runs, sampled every 20 ms. */
async function peakRss(pid, fn) {
  let peak = memoryMb(pid).rss;
  const timer = setInterval(() => (peak = Math.max(peak, memoryMb(pid).rss)), 20);
  try {
    const out = await fn();
    return { out, rss_mb: round(Math.max(peak, memoryMb(pid).rss)) };
  } finally {
    clearInterval(timer);
  }
}

/** An answer read to its end without keeping it: bytes and time. */
async function download(url, token, path) {
  const t = performance.now();
  const res = await fetch(url + path, { headers: { 'X-Auth-Token': token } });
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  return { status: res.status, ms: round(performance.now() - t), mb: round(bytes / 1e6) };
}

/** Builds the lab: accounts through the API, the bulk rows (users, documents, attempts…) written directly. */
async function build(dbFile, api, master) {
  const sizes = {};
  const t0 = performance.now();
  const put = async (path, data) => {
    const r = await api('PUT', path, data);
    if (r.status !== 201) throw new Error(`PUT ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.body.data;
  };
  const reseller = await put(`/v2/accounts/${master}`, { name: 'Reseller' });
  const objects = await put(`/v2/accounts/${master}`, { name: 'Objects' });
  const children = [];
  await inParallel(Array.from({ length: SIZES.children }, (_, i) => i), 16, async (i) => {
    children.push((await put(`/v2/accounts/${reseller.id}`, { name: `Customer ${String(i).padStart(5, '0')}` })).id);
  });
  const perChild = Math.ceil(SIZES.grandchildren / Math.max(1, Math.floor(SIZES.children / 4)));
  const parents = children.slice(0, Math.ceil(SIZES.grandchildren / perChild));
  const subs = parents.flatMap((p, k) => Array.from({ length: perChild }, (_, j) => [p, k * perChild + j])).slice(0, SIZES.grandchildren);
  await inParallel(subs, 16, async ([p, i]) => put(`/v2/accounts/${p}`, { name: `Site ${String(i).padStart(5, '0')}` }));
  sizes.accounts = 3 + SIZES.children + subs.length;
  sizes.accounts_build_s = round((performance.now() - t0) / 1000);

  // a user who logs in (the listing of hooks masks secrets for plain users)
  await put(`/v2/accounts/${objects.id}/users`, { username: 'clerk', password: 'clerk-pass', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' });
  // the documents written directly are copies of ones the API made (its defaults filled in)
  const user = await put(`/v2/accounts/${objects.id}/users`, { username: 'model', first_name: 'U', last_name: 'Model', priv_level: 'user' });
  const device = await put(`/v2/accounts/${objects.id}/devices`, { name: 'Phone model', sip: { username: 'model' } });
  const callflow = await put(`/v2/accounts/${objects.id}/callflows`, { name: 'Flow model', numbers: ['+14155559999'], flow: { module: 'user', data: {} } });
  const model = await put(`/v2/accounts/${objects.id}/webhooks`, {
    name: 'Hook model', uri: 'http://127.0.0.1:9/model', hook: 'channel_create', secret: `whsec_${randomBytes(32).toString('base64')}`,
  });
  const strip = ({ id: _id, ...rest }) => rest;

  const db = new DatabaseSync(dbFile, { timeout: 10_000 });
  const now = Date.now();
  db.exec('BEGIN IMMEDIATE');
  const doc = db.prepare('INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  for (let i = 0; i < SIZES.objects; i++) {
    const at = now - (SIZES.objects - i) * 1000;
    doc.run(id(), 'user', objects.id, JSON.stringify({ ...strip(user), username: `user${i}`, last_name: String(i) }), '{}', '1-x', at, at);
    const phone = { ...strip(device), name: `Phone ${i}`, mac_address: macOf(i), sip: { ...device.sip, username: `phone${i}` } };
    doc.run(id(), 'device', objects.id, JSON.stringify(phone), '{}', '1-x', at, at);
    doc.run(id(), 'callflow', objects.id, JSON.stringify({ ...strip(callflow), name: `Flow ${i}`, numbers: [numberOf(i)] }), '{}', '1-x', at, at);
    // what the objects' reseller (the master account) offers
    doc.run(id(), 'resource_template', master, JSON.stringify({ name: `Template ${i}`, template_name: `t${i}` }), '{}', '1-x', at, at);
  }
  const hook = db.prepare(`INSERT INTO webhooks (id, account_id, hook, enabled, include_subaccounts, doc, disable_reason, rev, created, modified)
    VALUES (?, ?, 'channel_create', 1, 0, ?, NULL, '1-x', ?, ?)`);
  const hooks = [];
  for (let i = 0; i < SIZES.objects; i++) {
    const hid = id();
    hooks.push(hid);
    const at = now - (SIZES.objects - i) * 1000;
    hook.run(hid, objects.id, JSON.stringify({ ...strip(model), name: `Hook ${i}`, uri: `http://127.0.0.1:9/h${i}` }), at, at);
  }
  db.exec('COMMIT');
  // 100,000 attempts over six days (the server prunes those older than a week), a quiet hook's ten among the oldest
  const quiet = hooks[0];
  const week = 6 * 86_400_000;
  db.exec('BEGIN IMMEDIATE');
  const attempt = db.prepare(`INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, source_id, source_name, event_name, uri, method, result,
      reason, client_error, http_status, latency_ms, try, retries_left, req_headers, req_body, resp_headers, resp_body, created)
    VALUES (?, ?, 'webhook', ?, ?, ?, 'channel_create', ?, 'post', ?, ?, NULL, ?, 12, 1, 2, ?, ?, ?, ?, ?)`);
  const body = JSON.stringify({ call_id: 'x'.repeat(40), caller_id_number: '+14155550100', callee_id_number: '+14155550101', hook_event: 'channel_create', pad: 'y'.repeat(300) });
  for (let i = 0; i < SIZES.attempts; i++) {
    const source = i < 10 ? quiet : hooks[1 + (i % Math.min(100, hooks.length - 1))];
    const ok = i % 10 !== 0;
    attempt.run(i + 1, randomBytes(5).toString('hex'), objects.id, source, 'Hook', 'http://127.0.0.1:9/h', ok ? 'success' : 'failure', ok ? null : 'bad response code',
      ok ? 200 : 503, '{"content-type":"application/json"}', body, '{"content-type":"text/plain"}', ok ? 'ok' : 'down', now - week + Math.floor((i / SIZES.attempts) * week));
  }
  db.exec('COMMIT');
  // the inventory and one job of as many numbers, with its results
  const numbers = Array.from({ length: SIZES.numbers }, (_, i) => `+1${String(2_000_000_000 + i)}`);
  const jobId = `${new Date(now).toISOString().slice(0, 7).replace('-', '')}-${id()}`;
  db.exec('BEGIN IMMEDIATE');
  const number = db.prepare(`INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified) VALUES (?, ?, 'res', 'reserved', ?, ?, ?)`);
  for (const num of numbers) number.run(num, objects.id, jobId, now, now);
  const job = db.prepare(`INSERT INTO resource_jobs (id, account_id, auth_account_id, resource_id, name, status, total, processed, successes, failures, created, modified)
    VALUES (?, ?, ?, 'res', 'scale', 'complete', ?, ?, ?, ?, ?, ?) RETURNING seq`);
  const errors = Math.floor(SIZES.numbers / 100);
  const seq = job.get(jobId, objects.id, objects.id, SIZES.numbers, SIZES.numbers, SIZES.numbers - errors, errors, now, now).seq;
  db.prepare('INSERT INTO resource_job_numbers (job_seq, numbers) VALUES (?, ?)').run(seq, JSON.stringify(numbers));
  const result = db.prepare('INSERT INTO resource_job_results (job_seq, idx, number, reason, message) VALUES (?, ?, ?, ?, ?)');
  numbers.forEach((num, i) => (i % 100 === 99 ? result.run(seq, i, num, 'number_exists', `number ${num} already exists`) : result.run(seq, i, num, null, null)));
  db.exec('COMMIT');
  db.close();
  sizes.build_s = round((performance.now() - t0) / 1000);
  return { reseller: reseller.id, child: children[0], objects: objects.id, quiet, jobId, hooks, sizes };
}

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('run it with `npx node scripts/bench/scale.mjs` (Node 24)');
  await bundle({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'tel-scale-'));
  const dbFile = join(dir, 'scale.db');
  const results = { bench: 'scale', ok: true, scale: SCALE, page_size: PAGE, sizes: SIZES };
  try {
    const init = JSON.parse((await tel(dbFile, 'init', '--account', 'Lab', '--username', 'admin', '--password', 'admin-pass', '--json')).stdout);
    const master = init.account_id;
    const { child, url } = await startProcess([...TEL_NODE_FLAGS, '--require', join(root, 'scripts/bench/lib/loop-delay.cjs'), bin, 'serve', '--db', dbFile, '--port', '0']);
    const loop = loopDelay(child);
    const anon = client(url);
    const token = (await anon('PUT', '/v2/api_auth', { api_key: init.api_key })).body.auth_token;
    const api = client(url, token);
    const probe = await startProbe(url, token, master);
    const probeAt = () => probe.span();
    const lab = await build(dbFile, api, master);
    results.sizes = { ...SIZES, ...lab.sizes };
    const creds = createHash('md5').update('clerk:clerk-pass').digest('hex');
    const clerk = client(url, (await anon('PUT', '/v2/user_auth', { credentials: creds, account_name: 'Objects' })).body.auth_token);
    const o = `/v2/accounts/${lab.objects}`;

    const listings = {
      children_3000: [api, `/v2/accounts/${lab.reseller}/children`],
      descendants_10k: [api, `/v2/accounts/${master}/descendants`],
      siblings_3000: [api, `/v2/accounts/${lab.child}/siblings`],
      users: [api, `${o}/users`],
      devices: [api, `${o}/devices`],
      callflows: [api, `${o}/callflows`],
      resource_templates: [api, `${o}/resource_templates`],
      webhooks: [api, `${o}/webhooks`],
      webhooks_user_token: [clerk, `${o}/webhooks`],
      attempts: [api, `${o}/webhooks/attempts`],
      attempts_quiet_hook: [api, `${o}/webhooks/${lab.quiet}/attempts`],
      phone_numbers: [api, `${o}/phone_numbers`],
    };
    results.listings = {};
    for (const [name, [who, path]] of Object.entries(listings)) results.listings[name] = await measureListing(who, loop, path, { page: PAGE, probeAt });
    // a window six days back: the oldest day of the log
    const gregorian = (ms) => Math.floor(ms / 1000) + 62_167_219_200;
    const weekAgo = Date.now() - 6 * 86_400_000;
    results.listings.attempts_old_window = await measureListing(api, loop, `${o}/webhooks/attempts?created_from=${gregorian(weekAgo)}&created_to=${gregorian(weekAgo + 86_400_000)}`, { page: PAGE, probeAt });

    // every row at once, streamed
    results.whole = {};
    for (const [name, path] of Object.entries({
      attempts: `${o}/webhooks/attempts?paginate=false`,
      phone_numbers: `${o}/phone_numbers?paginate=false`,
      job_detail: `${o}/resources/jobs/${lab.jobId}`,
    })) {
      await loop.reset();
      const stop = probeAt();
      const { out, rss_mb } = await peakRss(child.pid, () => download(url, token, path));
      results.whole[name] = { ...out, worst_wait_ms: await stop(), ...(await loop.read()), server_rss_mb: rss_mb };
    }

    // the bulk re-enable down the tree: fifty auto-disabled hooks among the 10,000 accounts'
    const disable = () => {
      const db = new DatabaseSync(dbFile, { timeout: 10_000 });
      const set = db.prepare(`UPDATE webhooks SET enabled = 0, disable_reason = 'too many failures', doc = json_set(doc, '$.enabled', json('false')) WHERE id = ?`);
      for (const h of lab.hooks.slice(0, 50)) set.run(h);
      db.close();
    };
    const reenable = [];
    for (let i = 0; i < 3; i++) {
      disable();
      await sleep(50);
      const t = performance.now();
      const r = await api('PATCH', `/v2/accounts/${master}/descendants/webhooks`, { 're-enable': true });
      if (r.status !== 200) throw new Error(`re-enable: ${r.status} ${r.text}`);
      reenable.push(performance.now() - t);
    }
    results.reenable_tree_ms = round(median(reenable), 2);

    // a user beside 10,000: refused (the name is taken) and created (with its password hashed)
    const taken = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await api('PUT', `${o}/users`, { username: 'USER5', password: 'pw', first_name: 'U', last_name: 'Five' });
      if (r.status !== 400 || !r.body.data.username?.unique) throw new Error(`duplicate user: ${r.status} ${r.text}`);
      taken.push(performance.now() - t);
    }
    const created = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await api('PUT', `${o}/users`, { username: `extra${i}`, password: 'pw', first_name: 'Extra', last_name: String(i) });
      if (r.status !== 201) throw new Error(`user: ${r.status} ${r.text}`);
      created.push(performance.now() - t);
    }
    results.user_create = { refused_ms: round(median(taken), 2), created_ms: round(median(created), 2) };
    // a device and a callflow beside 10,000 of each: refused (its MAC address, its number taken) and created
    const timed = async (fn) => {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await fn(i);
        times.push(performance.now() - t);
      }
      return round(median(times), 2);
    };
    const expect = (what, r, ok) => {
      if (!ok) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
    };
    results.device_create = {
      refused_ms: await timed(async () => {
        const r = await api('PUT', `${o}/devices`, { name: 'Copy', mac_address: macOf(5).replaceAll(':', '').toUpperCase() });
        expect('duplicate device', r, r.status === 400 && r.body.data.mac_address?.unique);
      }),
      created_ms: await timed(async (i) => {
        const r = await api('PUT', `${o}/devices`, { name: `Extra phone ${i}`, mac_address: macOf(SIZES.objects + i), sip: { username: `extra${i}` } });
        expect('device', r, r.status === 201);
      }),
    };
    results.callflow_create = {
      refused_ms: await timed(async () => {
        const r = await api('PUT', `${o}/callflows`, { name: 'Copy', numbers: [numberOf(5)], flow: { module: 'user', data: {} } });
        expect('duplicate callflow', r, r.status === 400 && r.body.data.numbers?.unique);
      }),
      created_ms: await timed(async (i) => {
        const r = await api('PUT', `${o}/callflows`, { name: `Extra flow ${i}`, numbers: [numberOf(SIZES.objects + i)], flow: { module: 'user', data: {} } });
        expect('callflow', r, r.status === 201);
      }),
    };
    results.server_rss_mb = round(memoryMb(child.pid).rss);

    // the CLI on the same file, beside the server
    const job = await tel(dbFile, 'jobs', 'show', lab.jobId);
    const jobJson = await tel(dbFile, 'jobs', 'show', lab.jobId, '--json');
    const attemptsJson = await tel(dbFile, 'webhooks', 'attempts', '--account', lab.objects, '--limit', '0', '--json');
    const watch = await tel(dbFile, 'watch', '--once', '--tail', '100');
    const exported = await tel(dbFile, 'export');
    const labFile = join(dir, 'lab.yaml');
    writeFileSync(labFile, exported.stdout);
    const applied = await telMedian(dbFile, 'apply', labFile);
    if (!/No changes/.test(applied.stdout)) throw new Error(`apply of the exported lab changed something: ${applied.stdout.slice(0, 500)}`);
    // the same lab as JSON: what planning costs without the YAML parser
    const jsonLab = join(dir, 'lab.json');
    writeFileSync(jsonLab, (await tel(dbFile, 'export', '--json')).stdout);
    const appliedJson = await telMedian(dbFile, 'apply', jsonLab);
    if (!/No changes/.test(appliedJson.stdout)) throw new Error(`apply of the exported JSON lab changed something: ${appliedJson.stdout.slice(0, 500)}`);
    const usersLab = join(dir, 'users.yaml');
    const users = Array.from({ length: SIZES.newUsers }, (_, i) => `      - username: new${i}\n        password: pw-${i}\n        first_name: New\n        last_name: User ${i}`).join('\n');
    writeFileSync(usersLab, `version: 1\naccount:\n  name: Lab\n  children:\n    - name: Objects\n      users:\n${users}\n`);
    const newUsers = await tel(dbFile, 'apply', usersLab, '--json');
    const appliedUsers = JSON.parse(newUsers.stdout);
    results.cli = {
      jobs_show: { ms: job.ms, rss_mb: job.rss_mb, lines: job.stdout.trim().split('\n').length },
      jobs_show_json: { ms: jobJson.ms, rss_mb: jobJson.rss_mb, mb: round(jobJson.stdout.length / 1e6) },
      webhooks_attempts_all_json: { ms: attemptsJson.ms, rss_mb: attemptsJson.rss_mb, mb: round(attemptsJson.stdout.length / 1e6) },
      watch_once_tail_100: { ms: watch.ms, rss_mb: watch.rss_mb },
      export: { ms: exported.ms, rss_mb: exported.rss_mb, mb: round(exported.stdout.length / 1e6) },
      apply_unchanged: { ms: applied.ms, cpu_ms: applied.cpu_ms, rss_mb: applied.rss_mb },
      apply_unchanged_json: { ms: appliedJson.ms, cpu_ms: appliedJson.cpu_ms, rss_mb: appliedJson.rss_mb },
      apply_new_users: { users: SIZES.newUsers, ms: newUsers.ms, longest_transaction_ms: appliedUsers.longest_transaction_ms, transactions: appliedUsers.transactions },
    };

    // the write-ahead log once the server has been quiet a while (it truncates the log after
    // 30 s of quiet: src/store/checkpointer.ts)
    await sleep(33_000);
    results.wal_mb_when_quiet = round(statSync(`${dbFile}-wal`).size / 1e6, 2);
    await probe.stop();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  } finally {
    stopAll();
    if (KEEP) console.error(`database kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  printTable(results);
  console.log(JSON.stringify(results));
}

function printTable(r) {
  const line = (a, b, c, d, e, f) =>
    console.log(`${String(a).padEnd(24)}${String(b).padStart(10)}${String(c).padStart(10)}${String(d).padStart(14)}${String(e).padStart(14)}${String(f).padStart(12)}`);
  line('listing (50 a page)', 'first ms', 'last ms', 'walk ms/pages', 'worst wait ms', 'loop max/cpu');
  for (const [name, m] of Object.entries(r.listings)) line(name, m.first_ms, m.last_ms, `${m.walk_ms}/${m.pages}`, m.worst_wait_ms, `${m.server_loop_max_ms}/${m.server_held_cpu_ms}`);
  for (const [name, m] of Object.entries(r.whole)) {
    console.log(`whole ${name}: ${m.mb} MB in ${m.ms} ms, worst wait ${m.worst_wait_ms} ms, server loop delayed ${m.server_loop_max_ms} ms and held ${m.server_held_cpu_ms} ms of CPU at most, server RSS ${m.server_rss_mb} MB`);
  }
  console.log(`bulk re-enable down the tree: ${r.reenable_tree_ms} ms; user refused ${r.user_create.refused_ms} ms, created ${r.user_create.created_ms} ms`);
  console.log(`device refused ${r.device_create.refused_ms} ms, created ${r.device_create.created_ms} ms; callflow refused ${r.callflow_create.refused_ms} ms, created ${r.callflow_create.created_ms} ms`);
  for (const [name, m] of Object.entries(r.cli)) console.log(`tel ${name.replaceAll('_', ' ')}: ${JSON.stringify(m)}`);
  console.log(`WAL when quiet: ${r.wal_mb_when_quiet} MB; server RSS ${r.server_rss_mb} MB`);
}

runMain(main);
