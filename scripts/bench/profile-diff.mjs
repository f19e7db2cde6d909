// Two V8 CPU profiles of the same workload (`delivery-cost.mjs --cpu-prof`, one per commit) side by
// side, function by function: self and total time, in µs a unit of work (a delivery, a request),
// and the largest differences first. Functions are matched by name and file, not line, so that a
// function moved within its file still meets itself; an unminified bundle (`TEL_BUNDLE_MINIFY=0`)
// keeps the names.
//
//   node scripts/bench/profile-diff.mjs A.cpuprofile B.cpuprofile [--units N | --units-a N --units-b N]
//        [--top 15] [--by self|total]
//
// Units: how many deliveries (requests…) each profile covers (with delivery-cost.mjs: warm-up plus
// rounds × n). Without them the figures are ms of the whole profile. B − A is the delta: positive
// where B spends more.
import { parseArgs } from 'node:util';
import { functionWeights } from './lib/cpu-profile.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    units: { type: 'string' },
    'units-a': { type: 'string' },
    'units-b': { type: 'string' },
    top: { type: 'string', default: '15' },
    by: { type: 'string', default: 'self' },
  },
});
if (positionals.length !== 2 || !['self', 'total'].includes(opt.by)) {
  console.error('usage: profile-diff.mjs A.cpuprofile B.cpuprofile [--units N | --units-a N --units-b N] [--top 15] [--by self|total]');
  process.exit(2);
}
const unitsA = Number(opt['units-a'] ?? opt.units ?? 1000);
const unitsB = Number(opt['units-b'] ?? opt.units ?? 1000);
const unitName = opt.units || opt['units-a'] ? 'µs/unit' : 'ms';

/** Self and total µs of each function (name and file) of a profile, per unit. */
function times(file, units) {
  const key = (f) => {
    const where = f.url ? f.url.replace(/^.*\//, '') : '';
    return `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
  };
  // timeDeltas[i] is the time before sample i: it is charged to that sample
  const w = functionWeights(file, key, (i, profile) => profile.timeDeltas[i] ?? 0);
  const per = (m) => new Map([...m].map(([k, v]) => [k, v / units]));
  return { self: per(w.self), total: per(w.total), all: w.all / units };
}

const a = times(positionals[0], unitsA);
const b = times(positionals[1], unitsB);
const keys = new Set([...a.self.keys(), ...b.self.keys(), ...a.total.keys(), ...b.total.keys()]);
const by = opt.by;
const rows = [...keys]
  .map((k) => ({ k, d: (b[by].get(k) ?? 0) - (a[by].get(k) ?? 0) }))
  .sort((x, y) => Math.abs(y.d) - Math.abs(x.d))
  .slice(0, Number(opt.top));
const f = (n) => (n ?? 0).toFixed(1).padStart(8);
console.log(`whole profile: A ${a.all.toFixed(1)}, B ${b.all.toFixed(1)} ${unitName}; by ${by} time, B − A`);
console.log(`${'delta'.padStart(8)} ${'A self'.padStart(8)} ${'B self'.padStart(8)} ${'A total'.padStart(8)} ${'B total'.padStart(8)}  function`);
for (const { k, d } of rows) {
  console.log(`${f(d)} ${f(a.self.get(k))} ${f(b.self.get(k))} ${f(a.total.get(k))} ${f(b.total.get(k))}  ${k}`);
}
