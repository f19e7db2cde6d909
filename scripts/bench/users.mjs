// What passwords cost a server: creating 300 users through the API (4 clients), then an account
// grown to 10,000 users (8 clients), then logins on it, right and wrong, one at a time — and
// authenticated GETs answered meanwhile (the event loop is not held by hashing).
// Targets: 300 users at least ten times faster than 17.5 s; a login at most 50 ms, failed or not.
//
//   npx node scripts/bench/users.mjs [--users 10000] [--logins 50]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { TEL_NODE_FLAGS, runMain, startProcess, stopAll } from './lib/http.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({ options: { users: { type: 'string', default: '10000' }, logins: { type: 'string', default: '50' } } });
const TOTAL = Number(opts.users);
const LOGINS = Number(opts.logins);
const md5 = (s) => createHash('md5').update(s).digest('hex');
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (v) => Math.round(v * 100) / 100;

async function main() {
  execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'tel-users-'));
  try {
    const db = join(dir, 'users.db');
    const init = JSON.parse(execFileSync(process.execPath, ['bin/tel.js', 'init', '--db', db, '--account', 'Users', '--username', 'admin', '--password', 'pw'], { cwd: root, encoding: 'utf8' }));
    execFileSync(process.execPath, ['bin/tel.js', '--db', db, 'config', 'set', 'crossbar.auth', 'login_max_failures', '1000000'], { cwd: root });
    const server = await startProcess([...TEL_NODE_FLAGS, 'bin/tel.js', 'serve', '--db', db, '--port', '0'], { cwd: root });
    const pool = new Pool(server.url, { connections: 16 });
    const call = async (method, path, { token, data } = {}) => {
      const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) }, body: data === undefined ? undefined : JSON.stringify({ data }) });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    const token = (await call('PUT', '/v2/api_auth', { data: { api_key: init.api_key } })).body.auth_token;
    const account = (await call('PUT', `/v2/accounts/${init.account_id}`, { token, data: { name: 'Big' } })).body.data.id;
    let made = 0;
    const create = async (clients, upTo) => {
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (made < upTo) {
            const n = made++;
            const r = await call('PUT', `/v2/accounts/${account}/users`, { token, data: { first_name: 'Lab', last_name: 'User', username: `user${n}`, password: `pw-${n}` } });
            if (r.status !== 201) throw new Error(`creating user${n} answered ${r.status}`);
          }
        }),
      );
    };
    // GETs sampled while the first 300 are created: answered between the hashes
    let sampling = true;
    const gets = [];
    const sampler = (async () => {
      while (sampling) {
        const t = performance.now();
        await call('GET', `/v2/accounts/${account}`, { token });
        gets.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    let t0 = performance.now();
    await create(4, 300);
    const first300 = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    console.log(`300 users, 4 clients: ${first300.toFixed(2)} s; GETs meanwhile p99 ${pct(gets.sort((a, b) => a - b), 99).toFixed(1)} ms`);
    t0 = performance.now();
    await create(8, TOTAL);
    console.log(`${TOTAL} users in one account: the last ${TOTAL - 300} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const login = async (credentials, expect) => {
      const t = performance.now();
      const r = await call('PUT', '/v2/user_auth', { data: { credentials, account_name: 'Big' } });
      if (r.status !== expect) throw new Error(`a login answered ${r.status}, not ${expect}`);
      return performance.now() - t;
    };
    const right = [];
    const wrong = [];
    for (let i = 0; i < LOGINS; i++) {
      const n = (i * 7919) % TOTAL;
      right.push(await login(md5(`user${n}:pw-${n}`), 201));
      wrong.push(await login(md5(`user${n}:wrong-${i}`), 401));
    }
    right.sort((a, b) => a - b);
    wrong.sort((a, b) => a - b);
    const result = {
      bench: 'users',
      ok: true,
      users_300_s: round(first300),
      users_300_target_s: 1.75,
      get_p99_ms_while_creating: round(pct(gets, 99)),
      users_in_account: TOTAL,
      login_ms: { p50: round(pct(right, 50)), p99: round(pct(right, 99)), max: round(right.at(-1)) },
      failed_login_ms: { p50: round(pct(wrong, 50)), p99: round(pct(wrong, 99)), max: round(wrong.at(-1)) },
      login_target_ms: 50,
    };
    console.log(`logins at ${TOTAL} users: right p50 ${result.login_ms.p50} ms, p99 ${result.login_ms.p99} ms; wrong p50 ${result.failed_login_ms.p50} ms, p99 ${result.failed_login_ms.p99} ms`);
    console.log(JSON.stringify(result));
    await pool.close();
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
