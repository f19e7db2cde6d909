import type { Core } from '../core.js';
import type { ApiOptions, RunningApi } from '../http/app.js';
import { compileValidatorsInBackground } from '../schema/validate.js';
import { CliError } from './io.js';

/** The garbage the start-up's compilation of validators may make before it waits for a collection. */
const COMPILE_GARBAGE_BYTES = 8 * 1024 * 1024;

/**
 * Starts the API and its workers on an open core (the HTTP server, node:http and all, loads only
 * when one starts). Nothing is left listening when it fails: a port that cannot be had is one
 * sentence naming it; any other failure goes up as it is.
 */
export async function startServing(core: Core, host: string, port: number, opts: ApiOptions): Promise<RunningApi> {
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
