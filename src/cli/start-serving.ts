import { setFlagsFromString } from 'node:v8';
import type { Core } from '../core.js';
import type { ApiOptions, RunningApi } from '../http/app.js';
import { compileValidatorsInBackground } from '../schema/validate.js';
import { CliError } from './io.js';

/**
 * Hot functions of a server go to V8's optimising compiler after 100 calls instead of 3,000. A
 * server runs the same few paths for hours; without this, the first 5,000 calls after a warm-up
 * of 3,000 (the webhooks yardstick's first round) cost 1.96 times the main thread's CPU of the
 * next 5,000, and 1.16 times with it (CPU profiles split by round, scripts/bench/delivery-cost.mjs).
 * A flag of Node 24's V8 that older Nodes refuse at start (the `bin/tel.js` shebang must still
 * run on them, to say that tel needs Node 24), and one that makes a short command's start-up 8%
 * longer (more is compiled before it ends): so it is set here, when a server starts and before
 * its code first runs. V8's tiering reads it at each decision; Node does not freeze V8's flags.
 */
const SERVER_TIERING_FLAG = '--invocation-count-for-turbofan=100';

/** The garbage the start-up's compilation of validators may make before it waits for a collection. */
const COMPILE_GARBAGE_BYTES = 8 * 1024 * 1024;

/**
 * Starts the API and its workers on an open core (the HTTP server, node:http and all, loads only
 * when one starts). Nothing is left listening when it fails: a port that cannot be had is one
 * sentence naming it; any other failure goes up as it is.
 */
export async function startServing(core: Core, host: string, port: number, opts: ApiOptions): Promise<RunningApi> {
  setFlagsFromString(SERVER_TIERING_FLAG);
  const { ListenError, startApi, collectOnGrowth, collectWhenQuiet } = await import('../http/app.js');
  try {
    const api = await startApi(core, host, port, opts);
    // the compilation's garbage is handed back as it grows, and once it is done
    compileValidatorsInBackground(collectWhenQuiet, collectOnGrowth(COMPILE_GARBAGE_BYTES));
    return api;
  } catch (err) {
    throw err instanceof ListenError ? new CliError(`${err.message}.`) : err;
  }
}
