// Which engine matches the patterns tenants write (dial plans, e164_converters): V8's own
// (backtracking), re2js (RE2 in JavaScript, what tel uses) and V8's linear engine (`/l`, behind
// --enable-experimental-regexp-engine, run in a child process started with the flag). For each:
// what the hostile `^([0-9]+)*$` costs on a number of 20 to 31 characters (V8's own only up to 26:
// it doubles with each character), and CPU per match of Kazoo's three e164_converters on everyday
// numbers; re2js also its load and a first compile. Prints one JSON line per engine.
//   npx node scripts/bench/patterns.mjs [--matches 100000]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const MATCHES = Number(args[args.indexOf('--matches') + 1] || 100_000);
const HOSTILE = '^([0-9]+)*$';
const CONVERTERS = ['^(\\+?1)?([2-9][0-9]{2}[2-9][0-9]{6})$', '^011(\\d{5,})$|^00(\\d{5,})$', '^[2-9]\\d{7,}$'];
const NUMBERS = ['4155550100', '14155550100', '01133123456789', '1000', '*97', '442071838750'];

const cpuMs = (fn) => {
  const a = process.cpuUsage();
  fn();
  const b = process.cpuUsage(a);
  return (b.user + b.system) / 1000;
};

/** µs of CPU per match of the converters, first match of each number, over `MATCHES` numbers. */
function perMatchUs(exec) {
  for (let i = 0; i < 10_000; i++) exec(CONVERTERS[i % 3], NUMBERS[i % NUMBERS.length]);
  const ms = cpuMs(() => {
    for (let i = 0; i < MATCHES; i++) {
      const n = NUMBERS[i % NUMBERS.length];
      for (const p of CONVERTERS) if (exec(p, n)) break;
    }
  });
  return Number(((ms * 1000) / MATCHES).toFixed(2));
}

function hostileMs(exec, lengths) {
  return Object.fromEntries(lengths.map((n) => [n, Number(cpuMs(() => exec(HOSTILE, `${'1'.repeat(n - 1)}!`)).toFixed(2))]));
}

if (args.includes('--v8-linear')) {
  const cache = new Map();
  const exec = (p, s) => {
    let re = cache.get(p);
    if (!re) cache.set(p, (re = new RegExp(p, 'l')));
    return re.exec(s);
  };
  console.log(JSON.stringify({ engine: 'v8 /l', hostile_ms: hostileMs(exec, [20, 26, 31]), converters_us_per_number: perMatchUs(exec) }));
  process.exit(0);
}

{
  const cache = new Map();
  const exec = (p, s) => {
    let re = cache.get(p);
    if (!re) cache.set(p, (re = new RegExp(p)));
    return re.exec(s);
  };
  console.log(JSON.stringify({ engine: 'v8 backtracking', hostile_ms: hostileMs(exec, [20, 23, 26]), converters_us_per_number: perMatchUs(exec) }));
}

{
  let RE2JS;
  const loadMs = cpuMs(() => ({ RE2JS } = require('re2js')));
  const firstCompileMs = cpuMs(() => RE2JS.compile(CONVERTERS[0]).matcher(NUMBERS[0]).find());
  const cache = new Map();
  const exec = (p, s) => {
    let re = cache.get(p);
    if (!re) cache.set(p, (re = RE2JS.compile(p)));
    if (!re.test(s)) return null;
    const m = re.matcher(s);
    return m.find() ? m.group(0) : null;
  };
  console.log(JSON.stringify({ engine: 're2js', load_ms: Number(loadMs.toFixed(1)), first_compile_ms: Number(firstCompileMs.toFixed(1)), hostile_ms: hostileMs(exec, [20, 26, 31]), converters_us_per_number: perMatchUs(exec) }));
}

const child = spawnSync(process.execPath, ['--enable-experimental-regexp-engine', fileURLToPath(import.meta.url), '--v8-linear', '--matches', String(MATCHES)], { encoding: 'utf8' });
process.stdout.write(child.stdout || `${JSON.stringify({ engine: 'v8 /l', error: child.stderr.trim().split('\n').pop() })}\n`);

function require(id) {
  return process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);
}
