// The shared yardsticks (../shared/bench: webhooks, api get, jobs, startup) run against this
// checkout and another commit in the same run, so that a loss shows the day it happens: REF gets
// a temporary worktree (lib/checkout.mjs), each yardstick runs on one side then the other (the
// order alternating from round to round), and each side's figures are the medians of its rounds.
// Prints each figure side by side with this checkout's over REF's, then one JSON line.
//
//   npm run bench:compare -- REF [--only webhooks,api,jobs,startup] [--rounds N] [--bench DIR]
//
// A yardstick reaches tel only through TEL_CMD (here: the checkout's own bin/tel.js, started as
// its shebang starts it) and TEL_MAIN; the startup yardstick times each checkout's dist/tel,
// which is built first (`npm run build`, a minute or so each).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prepareCheckout, existingCheckout, root, telCommand } from './lib/checkout.mjs';
import { median } from './lib/serve-checkout.mjs';
import { parseCompareArgs, UsageError, USAGE, YARDSTICKS } from './lib/compare-args.mjs';

let opts;
try {
  opts = parseCompareArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`bench:compare: ${err.message}\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const benchDir = resolve(opts.bench ?? join(root, '../shared/bench'));
if (!existsSync(join(benchDir, 'api.mjs'))) {
  console.error(`bench:compare: no shared yardsticks in ${benchDir} (--bench DIR names their directory)`);
  process.exit(2);
}
const log = (...a) => process.stderr.write(`· ${a.join(' ')}\n`);
// the yardsticks' own dependencies (autocannon, undici), which a fresh copy of them lacks
if (existsSync(join(benchDir, 'setup.sh'))) {
  const setup = spawnSync('bash', [join(benchDir, 'setup.sh')], { stdio: 'inherit' });
  if (setup.status !== 0) {
    console.error('bench:compare: the yardsticks\' setup.sh failed');
    process.exit(1);
  }
}
const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/** The shell prefix the yardsticks start a checkout's tel with: its shebang's environment and flags. */
function telCmdOf(dir) {
  const cmd = telCommand(dir);
  const env = Object.entries(cmd.env).map(([k, v]) => `${k}=${quote(v)}`);
  return ['env', ...env, quote(cmd.node), ...cmd.args.map(quote)].join(' ');
}

/** Runs one yardstick against one checkout; answers its figures (null ones when its run was not ok). */
function runYardstick(name, side) {
  const y = YARDSTICKS[name];
  const env = { ...process.env, TEL_MAIN: side.dir, TEL_CMD: telCmdOf(side.dir) };
  if (name === 'startup') env.TEL_BIN = join(side.dir, 'dist/tel');
  log(`${name} on ${side.label}`);
  return new Promise((resolveRun, reject) => {
    const child = spawn(join(root, 'node_modules/.bin/node'), [join(benchDir, y.script), ...y.args], { cwd: side.dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.once('error', reject);
    child.once('exit', () => {
      const line = out.split('\n').reverse().find((l) => l.startsWith('{"bench":'));
      if (!line) return resolveRun({ ok: false, figures: {} });
      const json = JSON.parse(line);
      resolveRun({ ok: json.ok === true, figures: json.ok ? y.figures(json) : {} });
    });
  });
}

const checkouts = [];
process.on('exit', () => {
  for (const c of checkouts) c.cleanup();
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(130));

try {
  const here = prepareCheckout('.', { log });
  checkouts.push(here);
  const other = opts.ref.startsWith('dir:') ? existingCheckout(opts.ref.slice(4)) : prepareCheckout(opts.ref, { log });
  checkouts.push(other);
  if (opts.only.includes('startup')) {
    for (const c of [here, other]) {
      log(`npm run build in ${c.label}`);
      execFileSync('npm', ['run', '-s', 'build'], { cwd: c.dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  const runs = new Map(opts.only.map((name) => [name, { here: [], other: [] }]));
  for (let r = 0; r < opts.rounds; r++) {
    for (const name of opts.only) {
      const order = r % 2 === 0 ? [['here', here], ['other', other]] : [['other', other], ['here', here]];
      for (const [key, side] of order) runs.get(name)[key].push(await runYardstick(name, side));
    }
  }
  const results = {};
  const lines = [];
  let ok = true;
  for (const [name, sides] of runs) {
    const fig = (list) => {
      const good = list.filter((x) => x.ok);
      const keys = Object.keys(good[0]?.figures ?? {});
      return Object.fromEntries(keys.map((k) => [k, good.some((x) => typeof x.figures[k] === 'number') ? median(good.map((x) => x.figures[k]).filter((v) => typeof v === 'number')) : null]));
    };
    const a = fig(sides.here);
    const b = fig(sides.other);
    const failed = [...sides.here, ...sides.other].filter((x) => !x.ok).length;
    if (failed > 0) ok = false;
    const over = {};
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      over[k] = typeof a[k] === 'number' && typeof b[k] === 'number' && b[k] !== 0 ? Math.round((a[k] / b[k]) * 1000) / 1000 : null;
      lines.push([`${name} ${k}`, a[k] ?? '–', b[k] ?? '–', over[k] ?? '–']);
    }
    results[name] = { here: a, ref: b, here_over_ref: over, runs_failed: failed };
  }
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[['figure', here.label, other.label, 'this/ref'], ...lines].map((l) => String(l[i]).length)));
  for (const l of [['figure', here.label, other.label, 'this/ref'], ...lines]) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join('  '));
  console.log(JSON.stringify({ bench: 'compare', ok, here: here.label, ref: other.label, rounds: opts.rounds, results }));
  if (!ok) process.exitCode = 1;
} catch (err) {
  console.error(`bench:compare: ${err.message}`);
  process.exitCode = 1;
}
