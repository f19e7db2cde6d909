// What moving a 10,000-account subtree costs the other tenants of a real `tel serve`: a second
// client, on a thread of its own, asks for its own account every 2 ms while a super-duper admin
// moves the subtree (a root, 2,000 children, 4 accounts under each) from one parent to another and
// back. For each move: how long it took, the other tenant's slowest wait and its 99th percentile,
// and the server's own view of its loop (lib/loop-delay.cjs: its longest delay, and the most CPU
// its main thread spent without a turn). Target: no wait over 50 ms. Prints one JSON line a move.
//   npx node scripts/bench/account-move.mjs [--accounts 10000]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundle } from '../bundle.mjs';
import { client, loopDelay, runMain, startAccountProbe, startProcess, stopAll, TEL_NODE_FLAGS } from './lib/http.mjs';

const args = process.argv.slice(2);
const ACCOUNTS = Number(args[args.indexOf('--accounts') + 1] || 10_000);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/tel.js');
const round = (n) => Math.round(n * 10) / 10;

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('run it with `npx node scripts/bench/account-move.mjs` (Node 24)');
  await bundle({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'tel-move-'));
  const db = join(dir, 'move.db');
  try {
    const init = JSON.parse((await promisify(execFile)(process.execPath, [bin, 'init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'admin-pass', '--json'])).stdout);
    const { child, url } = await startProcess([...TEL_NODE_FLAGS, '--require', join(root, 'scripts/bench/lib/loop-delay.cjs'), bin, 'serve', '--db', db, '--port', '0']);
    const loop = loopDelay(child);
    const call = (token) => {
      const send = client(url, token);
      return async (method, path, data) => {
        const r = await send(method, path, data);
        if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
        return r.body;
      };
    };
    const login = async (api_key) => (await call()('PUT', '/v2/api_auth', { api_key })).auth_token;
    const api = call(await login(init.api_key));
    const put = async (parent, name) => (await api('PUT', `/v2/accounts/${parent}`, { name })).data.id;
    const tenant = await put(init.account_id, 'Tenant B');
    const ends = [await put(init.account_id, 'Parent One'), await put(init.account_id, 'Parent Two')];
    const top = await put(ends[0], 'Moved');
    const children = Math.ceil((ACCOUNTS - 1) / 5);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < children) {
        const i = next++;
        const c = await put(top, `Customer ${i}`);
        for (let j = 0; j < 4 && 1 + children + i * 4 + j < ACCOUNTS; j++) await put(c, `Site ${i}-${j}`);
      }
    }));
    const probe = await startAccountProbe(url, await login((await api('GET', `/v2/accounts/${tenant}/api_key`)).data.api_key), tenant, 2);
    const waits = probe.waits;
    for (const to of [ends[1], ends[0]]) {
      await waits();
      await loop.reset();
      const t0 = performance.now();
      await api('POST', `/v2/accounts/${top}/move`, { to });
      const move_s = round((performance.now() - t0) / 1000);
      const w = (await waits()).sort((a, b) => a - b);
      console.log(JSON.stringify({ bench: 'account-move', accounts: ACCOUNTS, move_s, other_requests: w.length, other_p99_ms: round(w[Math.floor(w.length * 0.99)]), other_worst_ms: round(w[w.length - 1]), ...(await loop.read()) }));
    }
    await probe.stop();
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
