// Throughput of a restricted token against an unrestricted one on a real `tel serve`, same
// run, same account and request: what enforcing a realistic template costs per request.
// Target: the restricted token keeps at least 0.9 of the unrestricted token's requests/s.
//
//   npx node scripts/bench/restrictions/http.mjs [--seconds 3] [--rounds 5] [--connections 32]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEL_NODE_FLAGS, loadGet, runMain, startProcess, stopAll } from '../lib/http.mjs';

const TARGET_RATIO = 0.9;
const WARMUP_MS = 1_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
  },
});
const seconds = Number(opts.seconds);
const rounds = Number(opts.rounds);
const connections = Number(opts.connections);
if (!(seconds > 0 && seconds <= 600) || !(Number.isInteger(rounds) && rounds > 0 && rounds <= 50) || !(Number.isInteger(connections) && connections > 0 && connections <= 1000)) {
  console.error('--seconds must be in (0, 600], --rounds in 1..50 and --connections in 1..1000.');
  process.exit(2);
}
if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(`the benchmark needs the project's Node 24 (this is ${process.versions.node}): run it with \`npx node scripts/bench/restrictions/http.mjs\`.`);
  process.exit(2);
}

async function api(base, method, path, token, data) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
    body: data === undefined ? undefined : JSON.stringify({ data }),
  });
  return { status: res.status, body: await res.json() };
}

/** A template of 20 endpoints with several rule objects and keys each; `accounts` comes late. */
function template() {
  const names = [
    'users', 'devices', 'callflows', 'vmboxes', 'faxboxes', 'media', 'webhooks', 'queues', 'limits', 'resources',
    'phone_numbers', 'token_auth', 'children', 'descendants', 'conferences', 'menus', 'temporal_rules', 'cdrs', 'notifications',
  ];
  const rules = {};
  for (const [i, name] of names.entries()) {
    rules[name] = [
      { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['GET'] } },
      { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET', 'PUT'], '*': ['GET', 'POST'], '*/sync': [], [`*/quick_call/#`]: i % 2 ? ['GET'] : [] } },
      { rules: { '#': [] } },
    ];
  }
  rules.accounts = [
    { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '*': ['GET'], '*/children': ['GET'] } },
    { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['PUT'], '*/api_key': [], '*/descendants': ['GET'], '*/children': ['GET'], '*': ['GET'] } },
  ];
  rules._ = [{ rules: { '#': [] } }];
  return { cb_api_auth: { _: rules } };
}

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-'));
  try {
    const db = join(dir, 'bench.db');
    const init = JSON.parse(
      execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Bench', '--username', 'admin', '--password', 'bench-pass'], { cwd: root, encoding: 'utf8' }),
    );
    const { url: base } = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    const admin = (await api(base, 'PUT', '/v2/api_auth', undefined, { api_key: init.api_key })).body.auth_token;
    const sub = (await api(base, 'PUT', `/v2/accounts/${init.account_id}`, admin, { name: 'Bench Customer' })).body.data;
    const apiKey = (await api(base, 'GET', `/v2/accounts/${sub.id}/api_key`, admin)).body.data.api_key;

    const free = (await api(base, 'PUT', '/v2/api_auth', undefined, { api_key: apiKey })).body.auth_token;
    const set = await api(base, 'POST', `/v2/accounts/${sub.id}/token_restrictions`, admin, { restrictions: template() });
    if (set.status !== 200) throw new Error(`setting the template answered ${set.status}: ${JSON.stringify(set.body)}`);
    const restricted = (await api(base, 'PUT', '/v2/api_auth', undefined, { api_key: apiKey })).body.auth_token;

    const path = `/v2/accounts/${sub.id}`;
    const allowed = await api(base, 'GET', path, restricted);
    const denied = await api(base, 'GET', `${path}/api_key`, restricted);
    if (allowed.status !== 200 || denied.status !== 403 || (await api(base, 'GET', `${path}/api_key`, free)).status !== 200) {
      throw new Error(`the template does not act as expected: ${allowed.status} / ${denied.status}`);
    }
    console.log(`GET /v2/accounts/{id} on a 20-endpoint template (decided at the ${'accounts'} entry, rule object #2, key \`*\`);`);
    console.log(`${connections} connections, ${rounds} alternating rounds of ${seconds} s per token, after ${WARMUP_MS / 1000} s warm-up each`);

    const load = (token, ms) => loadGet(base, path, { 'x-auth-token': token }, { connections, ms });
    await load(free, WARMUP_MS);
    await load(restricted, WARMUP_MS);
    const totals = { free: { done: 0, ms: 0, errors: 0 }, restricted: { done: 0, ms: 0, errors: 0 } };
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first so that drift (other load, CPU clocks) hits both alike.
      const order = r % 2 === 0 ? ['free', 'restricted'] : ['restricted', 'free'];
      for (const which of order) {
        const res = await load(which === 'free' ? free : restricted, seconds * 1000);
        totals[which].done += res.done;
        totals[which].ms += seconds * 1000;
        totals[which].errors += res.errors;
        console.log(`  round ${r + 1} ${which.padEnd(10)} ${res.rps.toFixed(0).padStart(7)} req/s`);
      }
    }
    const rps = (t) => (t.done / t.ms) * 1000;
    const ratio = rps(totals.restricted) / rps(totals.free);
    console.log(`unrestricted ${rps(totals.free).toFixed(0).padStart(7)} req/s`);
    console.log(`restricted   ${rps(totals.restricted).toFixed(0).padStart(7)} req/s`);
    console.log(`ratio        ${ratio.toFixed(3)} (target >= ${TARGET_RATIO}): ${ratio >= TARGET_RATIO ? 'ok' : 'BELOW TARGET'}`);
    if (totals.free.errors + totals.restricted.errors > 0) console.log('some requests failed: the figures above are not comparable.');
    process.exitCode = ratio >= TARGET_RATIO ? 0 : 1;
  } finally {
    stopAll();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
