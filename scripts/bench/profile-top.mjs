// The functions a V8 CPU profile (`node --cpu-prof`, `delivery-cost.mjs --cpu-prof`) spent most
// time in: self time and total time (self plus callees), as shares of the profile's samples.
//
//   node scripts/bench/profile-top.mjs FILE.cpuprofile [--top 30] [--by self|total]
import { parseArgs } from 'node:util';
import { functionWeights } from './lib/cpu-profile.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, by: { type: 'string', default: 'self' } },
});
if (positionals.length !== 1 || !['self', 'total'].includes(opt.by)) {
  console.error('usage: profile-top.mjs FILE.cpuprofile [--top N] [--by self|total]');
  process.exit(2);
}
const key = (f) => {
  const file = f.url ? f.url.replace(/^.*\/(node_modules\/)?/, '') : '';
  return `${f.functionName || '(anonymous)'} ${file}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
const { self, total: inclusive, samples: total } = functionWeights(positionals[0], key);
const rows = [...(opt.by === 'self' ? self : inclusive)].sort((a, b) => b[1] - a[1]).slice(0, Number(opt.top));
const pct = (n) => `${((100 * (n ?? 0)) / total).toFixed(1).padStart(5)}%`;
console.log(`${total} samples; self  total  function`);
for (const [k] of rows) console.log(`${pct(self.get(k))} ${pct(inclusive.get(k))}  ${k}`);
