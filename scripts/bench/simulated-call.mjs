// What one simulated call costs the process, in-process (no HTTP): `simulate({kind: 'call'})` on a
// sub-account of a sub-account with one json `channel_create` hook, against a same-run baseline
// that writes the same delivery straight to the outbox (its one unavoidable write) in the same
// transactions. Rounds interleaved A B A B, medians reported.
//   npx node scripts/bench/simulated-call.mjs [--n 3000] [--rounds 5]
// Under `valgrind --tool=callgrind --smc-check=all-non-file … --calls-only --rounds 1 --n 0` and
// `--n 2000`, the difference of the instruction counts over 2000 is a call's instructions,
// whatever else runs on the machine.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '5' }, 'calls-only': { type: 'boolean', default: false } },
});
const N = Number(values.n);
const ROUNDS = Number(values.rounds);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const entry = `
export { openCore, closeCore } from './src/core.ts';
export { initDatabase } from './src/modules/accounts/bootstrap.ts';
export { createAccount } from './src/modules/accounts/service.ts';
export { createWebhook } from './src/modules/webhooks/service.ts';
export { simulate } from './src/modules/simulations/module.ts';
export { enqueueDelivery } from './src/delivery/outbox.ts';
export { transaction } from './src/store/db.ts';
`;

const work = mkdtempSync(join(tmpdir(), 'tel-bench-call-'));
try {
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  const file = join(work, 'tel.mjs');
  writeFileSync(file, out.outputFiles[0].text);
  const tel = await import(pathToFileURL(file).href);
  const core = tel.openCore(join(work, 'bench.db'));
  const master = tel.initDatabase(core, { account: 'Bench', username: 'admin', password: 'pw' });
  const mid = tel.createAccount(core, { name: 'Mid' }, { parentId: master.account_id });
  const leaf = tel.createAccount(core, { name: 'Leaf' }, { parentId: mid.id });
  const hook = tel.createWebhook(core, leaf.id, { name: 'h', uri: 'http://127.0.0.1:9/x', hook: 'channel_create', format: 'json' });
  const sample = JSON.stringify(tel.simulate(core, leaf.id, { kind: 'call', answer: false })[0]);

  const call = () => tel.simulate(core, leaf.id, { kind: 'call' });
  const baseline = () =>
    tel.transaction(core.db, () =>
      tel.enqueueDelivery(core, { kind: 'webhook', accountId: leaf.id, sourceId: hook.id, eventName: 'channel_create', url: 'http://127.0.0.1:9/x', method: 'post', format: 'json', payloadJson: sample }),
    );
  const time = (fn, n) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    return Number(process.hrtime.bigint() - t0) / 1e3 / Math.max(n, 1);
  };
  // warm up both paths
  time(call, 500);
  time(baseline, 500);
  const calls = [];
  const bases = [];
  for (let r = 0; r < ROUNDS && N > 0; r++) {
    calls.push(time(call, N));
    if (!values['calls-only']) bases.push(time(baseline, N));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  if (N > 0 && !values['calls-only']) {
    const c = median(calls);
    const b = median(bases);
    console.log(`simulated call: ${c.toFixed(1)} µs; its delivery written alone: ${b.toFixed(1)} µs; ratio ${(b / c).toFixed(2)}`);
    console.log(JSON.stringify({ bench: 'simulated-call', n: N, rounds: ROUNDS, call_us: +c.toFixed(1), baseline_us: +b.toFixed(1), ratio: +(b / c).toFixed(3) }));
  }
  tel.closeCore(core);
} finally {
  rmSync(work, { recursive: true, force: true });
}
