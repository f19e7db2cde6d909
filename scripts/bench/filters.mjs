// What Kazoo's listing filters cost a server at lab size: an account with 100,000 devices, listed
// with `filter_…` that keeps none of them (every row is read and tested), with one that keeps two
// (the first and the last), and with `paginate=false`. A real `tel serve` answers; a second client
// asks for an account every 5 ms meanwhile (its worst wait), and the server's own view of its
// event loop (lib/loop-delay.cjs: its longest delay, the most CPU spent without a turn) says
// whether the scan froze it. Each listing is timed three times (the median is shown).
// Prints a table, then one JSON line.
//   npx node scripts/bench/filters.mjs [--rows 100000]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from '../bundle.mjs';
import { loopDelay, runMain, startAccountProbe, startProcess, stopAll, TEL_NODE_FLAGS } from './lib/http.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const { values: opts } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const ROWS = Number(opts.rows);
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A device document of the size Monster UI writes (about 600 bytes). */
function device(i, tag) {
  return JSON.stringify({
    name: `Desk phone ${i}`,
    device_type: 'sip_device',
    enabled: true,
    owner_id: randomBytes(16).toString('hex'),
    sip: { username: `user_${i}`, password: randomBytes(8).toString('hex'), realm: 'lab.example.com', method: 'password', invite_format: 'contact', expire_seconds: 300 },
    caller_id: { internal: { name: `Desk ${i}`, number: String(1000 + (i % 9000)) }, external: { name: 'Lab', number: '+14155550100' } },
    media: { audio: { codecs: ['PCMU', 'PCMA'] }, video: { codecs: [] }, encryption: { enforce_security: false, methods: [] } },
    music_on_hold: {},
    call_restriction: {},
    contact_list: { exclude: false },
    custom: { tag },
  });
}

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('run it with `npx node scripts/bench/filters.mjs` (Node 24)');
  await bundle({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'tel-filters-'));
  const dbFile = join(dir, 'filters.db');
  try {
    const init = JSON.parse(execFileSync(process.execPath, [bin, 'init', '--db', dbFile, '--account', 'Lab', '--username', 'admin', '--password', 'pw'], { encoding: 'utf8' }));
    const account = init.account_id;
    const t0 = performance.now();
    const db = new DatabaseSync(dbFile);
    db.exec('BEGIN IMMEDIATE');
    const insert = db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'device', ?, ?, '{}', ?, ?, ?)");
    const now = Date.now() - ROWS;
    for (let i = 0; i < ROWS; i++) {
      const tag = i === 0 || i === ROWS - 1 ? 'rare' : 'common';
      insert.run(randomBytes(16).toString('hex'), account, device(i, tag), `1-${randomBytes(16).toString('hex')}`, now + i, now + i);
    }
    db.exec('COMMIT');
    db.close();
    const buildS = round((performance.now() - t0) / 1000);

    const { child, url } = await startProcess([...TEL_NODE_FLAGS, '--require', join(root, 'scripts/bench/lib/loop-delay.cjs'), bin, 'serve', '--db', dbFile, '--port', '0']);
    const loop = loopDelay(child);
    const login = await fetch(`${url}/v2/api_auth`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { api_key: init.api_key } }) });
    const token = (await login.json()).auth_token;
    // a second client asking for the account every 5 ms; worst() is its longest wait since the last call
    const probe = await startAccountProbe(url, token, account, 5);
    const worst = async () => round(Math.max(0, ...(await probe.waits())));
    const get = async (path) => {
      const t = performance.now();
      const res = await fetch(url + path, { headers: { 'X-Auth-Token': token } });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return { ms: performance.now() - t, body };
    };

    // the probe alone: what a request waits when nothing else runs
    await worst();
    await new Promise((r) => setTimeout(r, 2000));
    const idle = { worst_wait_ms: await worst() };

    const base = `/v2/accounts/${account}/devices`;
    const cases = {
      unfiltered_page: `${base}?page_size=50`,
      filter_keeps_none: `${base}?filter_custom.tag=nothing&page_size=50`,
      filter_keeps_two: `${base}?filter_custom.tag=rare&page_size=50`,
      filter_keeps_none_paginate_false: `${base}?filter_custom.tag=nothing&paginate=false`,
    };
    const results = {};
    for (const [name, path] of Object.entries(cases)) {
      const runs = [];
      await loop.reset();
      await worst();
      let rows = 0;
      for (let i = 0; i < 3; i++) {
        const r = await get(path);
        runs.push(r.ms);
        rows = r.body.data.length;
      }
      results[name] = { rows, median_ms: round(median(runs)), worst_wait_ms: await worst(), ...(await loop.read()) };
    }
    await probe.stop();
    console.log(`${ROWS.toLocaleString('en')} devices in one account (built in ${buildS} s); a second client's worst wait alone: ${idle.worst_wait_ms} ms`);
    console.log('listing                               rows   median ms   probe worst ms   server loop max ms   held CPU ms');
    for (const [name, r] of Object.entries(results)) {
      console.log(
        `${name.padEnd(36)} ${String(r.rows).padStart(5)} ${String(r.median_ms).padStart(11)} ${String(r.worst_wait_ms).padStart(16)} ${String(r.server_loop_max_ms).padStart(20)} ${String(r.server_held_cpu_ms).padStart(13)}`,
      );
    }
    console.log(JSON.stringify({ bench: 'filters', rows: ROWS, idle, ...results }));
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
