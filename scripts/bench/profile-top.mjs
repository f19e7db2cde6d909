// The functions a V8 CPU profile (`node --cpu-prof`, `delivery-cost.mjs --cpu-prof`) spent most
// time in: self time and total time (self plus callees), as shares of the profile's samples.
//
//   node scripts/bench/profile-top.mjs FILE.cpuprofile [--top 30] [--by self|total]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, by: { type: 'string', default: 'self' } },
});
if (positionals.length !== 1 || !['self', 'total'].includes(opt.by)) {
  console.error('usage: profile-top.mjs FILE.cpuprofile [--top N] [--by self|total]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const total = profile.samples.length;

const key = (n) => {
  const f = n.callFrame;
  const file = f.url ? f.url.replace(/^.*\/(node_modules\/)?/, '') : '';
  return `${f.functionName || '(anonymous)'} ${file}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
const self = new Map();
const inclusive = new Map();
for (const [id, count] of hits) {
  const k = key(nodes.get(id));
  self.set(k, (self.get(k) ?? 0) + count);
  // every distinct function on the stack gets the sample once
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const kk = key(nodes.get(at));
    if (seen.has(kk)) continue;
    seen.add(kk);
    inclusive.set(kk, (inclusive.get(kk) ?? 0) + count);
  }
}
const rows = [...(opt.by === 'self' ? self : inclusive)].sort((a, b) => b[1] - a[1]).slice(0, Number(opt.top));
const pct = (n) => `${((100 * (n ?? 0)) / total).toFixed(1).padStart(5)}%`;
console.log(`${total} samples; self  total  function`);
for (const [k] of rows) console.log(`${pct(self.get(k))} ${pct(inclusive.get(k))}  ${k}`);
