// Decisions per second of the restriction matcher on a realistic template, with a same-run
// baseline. Run: npx node scripts/bench/restrictions/matcher.mjs
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TARGET_PER_SECOND = 1_000_000;
const ROUND_MS = 400;
const ROUNDS = 7;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

async function loadEngine() {
  const out = await build({
    entryPoints: [join(root, 'src/restrictions/index.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  const dir = mkdtempSync(join(tmpdir(), 'tel-bench-'));
  const file = join(dir, 'restrictions.mjs');
  writeFileSync(file, out.outputFiles[0].text);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A deterministic pseudo-random source, so every run measures the same requests. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const hex = (n) => n.toString(16).padStart(32, '0');
const AUTH = hex(1);
const CHILDREN = Array.from({ length: 50 }, (_, i) => hex(100 + i));
const STRANGERS = Array.from({ length: 20 }, (_, i) => hex(1000 + i));
const descendants = new Set(CHILDREN);
const subject = { accountId: AUTH, isDescendant: (id) => descendants.has(id) };

const ENDPOINTS = [
  'accounts', 'users', 'devices', 'callflows', 'vmboxes', 'faxboxes', 'media', 'webhooks', 'queues',
  'limits', 'resources', 'phone_numbers', 'token_auth', 'api_key', 'children', 'descendants',
  'conferences', 'menus', 'temporal_rules', 'cdrs',
];

function template() {
  const rand = rng(42);
  const rules = {};
  const keyPool = ['/', '*', '#', '*/*', '*/sync', '*/quick_call/*', `${hex(7)}/#`, '#/channels', '*/*/*'];
  const verbPool = [['GET'], ['GET', 'POST'], ['_'], ['GET', 'PUT', 'POST'], [], ['DELETE']];
  ENDPOINTS.forEach((name, i) => {
    const objects = [];
    const n = 2 + (i % 3);
    for (let j = 0; j < n; j++) {
      const allowed = [
        ['{AUTH_ACCOUNT_ID}'],
        ['{DESCENDANT_ACCOUNT_ID}'],
        [STRANGERS[(i + j) % STRANGERS.length], CHILDREN[(i * 3 + j) % CHILDREN.length]],
        undefined,
      ][j % 4];
      const keys = {};
      const count = 3 + Math.floor(rand() * 4);
      for (let k = 0; k < count; k++) keys[keyPool[Math.floor(rand() * keyPool.length)]] = verbPool[Math.floor(rand() * verbPool.length)];
      objects.push(allowed ? { allowed_accounts: allowed, rules: keys } : { rules: keys });
    }
    rules[name] = i % 7 === 6 ? objects[0] : objects; // a few single-object entries
  });
  rules._ = [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['GET'] } }];
  return rules;
}

function requests(count) {
  const rand = rng(7);
  const methods = ['GET', 'GET', 'GET', 'PUT', 'POST', 'PATCH', 'DELETE'];
  const argShapes = [[], ['d1'], ['d1', 'sync'], ['d1', 'quick_call', '+15550100'], [hex(7), 'x', 'y'], ['u1', 'channels']];
  const out = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const accountId = r < 0.45 ? AUTH : r < 0.8 ? CHILDREN[i % CHILDREN.length] : r < 0.92 ? STRANGERS[i % STRANGERS.length] : undefined;
    const endpoint = rand() < 0.9 ? ENDPOINTS[Math.floor(rand() * ENDPOINTS.length)] : 'notifications';
    const args = argShapes[Math.floor(rand() * argShapes.length)];
    out.push({ method: methods[Math.floor(rand() * methods.length)], endpoint, args, accountId, segments: [] });
  }
  return out;
}

function measure(label, step, reqs) {
  let sink = 0;
  const rates = [];
  for (let round = 0; round < ROUNDS; round++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ROUND_MS) {
      for (let i = 0; i < reqs.length; i++) sink += step(reqs[i]);
      n += reqs.length;
      now = performance.now();
    }
    if (round > 0) rates.push((n / (now - start)) * 1000); // the first round warms the JIT
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)];
  return { label, median, sink };
}

const engine = await loadEngine();
const rules = template();
const reqs = requests(4096);
const compiledRules = engine.compileRules(rules);
const endpointSet = new Set(Object.keys(rules));

const allowedShare = reqs.filter((r) => engine.decide(rules, r, subject).allowed).length / reqs.length;
const steps = {};
for (const r of reqs) {
  const d = engine.decide(rules, r, subject);
  const k = d.failedStep ?? 'allowed';
  steps[k] = (steps[k] ?? 0) + 1;
}

const baseline = measure('baseline: Set.has(endpoint)', (r) => (endpointSet.has(r.endpoint) ? 1 : 0), reqs);
const raw = measure('decide(rules document)', (r) => (engine.decide(rules, r, subject).allowed ? 1 : 0), reqs);
const pre = measure('decide(compiled rules)', (r) => (engine.decide(compiledRules, r, subject).allowed ? 1 : 0), reqs);

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`template: ${ENDPOINTS.length} endpoints + _, ${Object.values(rules).flat().length} rule objects; ${reqs.length} requests, ${(allowedShare * 100).toFixed(1)}% allowed`);
console.log(`outcomes: ${Object.entries(steps).map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`${baseline.label.padEnd(30)} ${fmt(baseline.median).padStart(14)} ops/s`);
for (const r of [raw, pre]) {
  console.log(
    `${r.label.padEnd(30)} ${fmt(r.median).padStart(14)} decisions/s  ` +
      `ratio to target ${(r.median / TARGET_PER_SECOND).toFixed(2)}  ` +
      `(${(r.median / baseline.median).toFixed(3)} of baseline)`,
  );
}
const ok = raw.median >= TARGET_PER_SECOND;
console.log(ok ? `PASS: at least ${fmt(TARGET_PER_SECOND)} decisions/s` : `FAIL: below ${fmt(TARGET_PER_SECOND)} decisions/s`);
process.exitCode = ok ? 0 : 1;
