// The command line of scripts/bench/compare.mjs and the yardsticks it knows, apart from the script
// that runs them (so that a test reads them without starting a benchmark).
import { parseArgs } from 'node:util';

/**
 * The shared yardsticks compare.mjs runs, in the order it runs them: the script, its arguments,
 * and the figures taken from its JSON line (`null` when the line lacks one). Higher is better for
 * every ratio; lower for p99s, RSS and seconds.
 */
export const YARDSTICKS = {
  webhooks: {
    script: 'webhooks.mjs',
    args: [],
    figures: (j) => ({ ratio_vs_relay: j.ratio_vs_relay, deliveries_per_s: j.deliveries_per_s, dead_beside_live: j.isolation?.ratio }),
  },
  api: {
    script: 'api.mjs',
    args: ['--part', 'get'],
    figures: (j) => ({ ratio: j.get?.ratio, p99_ms: j.get?.p99_ms, rss_peak_mib: j.get?.rss_peak_mib }),
  },
  jobs: {
    script: 'jobs.mjs',
    args: [],
    figures: (j) => ({ ratio: j.ratio, get_p99_ms: j.get_p99_ms }),
  },
  startup: {
    script: 'startup.mjs',
    args: [],
    figures: (j) => ({ ratio: j.ratio, median_s: j.median_s }),
  },
};

export const USAGE = `usage: npm run bench:compare -- REF [--only ${Object.keys(YARDSTICKS).join(',')}] [--rounds N] [--bench DIR]
  REF       a commit (main, 07b1655, HEAD~3) or dir:PATH (an installed checkout), measured beside this checkout
  --only    the yardsticks to run, comma-separated (default: all of them)
  --rounds  runs of each yardstick on each side, interleaved (default 1; medians when more)
  --bench   the shared yardsticks' directory (default: ../shared/bench from the project root)`;

/** A usage error: the message says what is wrong; the caller prints it with USAGE and exits 2. */
export class UsageError extends Error {}

/**
 * Reads compare.mjs's arguments: {ref, only, rounds, bench, help}. Throws UsageError on anything
 * it does not take (no REF, two REFs, an unknown yardstick, a round count that is not a whole
 * number from 1 to 20).
 */
export function parseCompareArgs(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        only: { type: 'string' },
        rounds: { type: 'string', default: '1' },
        bench: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name the commit to compare with (REF)' : `one REF only, not ${positionals.length}`);
  const only = values.only === undefined ? Object.keys(YARDSTICKS) : values.only.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((name) => !(name in YARDSTICKS));
  if (unknown.length > 0 || only.length === 0) throw new UsageError(`--only takes ${Object.keys(YARDSTICKS).join(', ')}${unknown.length ? `, not ${unknown.join(', ')}` : ''}`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new UsageError(`--rounds takes a whole number from 1 to 20, not ${values.rounds}`);
  // in the yardsticks' own order, each once
  const chosen = Object.keys(YARDSTICKS).filter((name) => only.includes(name));
  return { help: false, ref: positionals[0], only: chosen, rounds, bench: values.bench };
}
