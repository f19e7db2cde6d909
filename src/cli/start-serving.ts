import type { Core } from '../core.js';
import type { ApiOptions, RunningApi } from '../http/app.js';
import { compileValidatorsInBackground } from '../schema/validate.js';
import { CliError } from './io.js';

/**
 * Calls after which V8 optimises a function that runs its whole body each time (3,000 by default;
 * one that returns early needs as many times its share). A server's paths are hot from its first
 * requests: at 3,000, the 5,000 deliveries after the webhooks yardstick's 3,000-call warm-up still
 * saw 118 functions optimised (0.47 s of the server's thread, `--trace-opt`), at 1,000, 39 (0.17
 * s); they cost 208-244 µs each against 192-216 in three pairs, and 170-186 once warm
 * (scripts/bench/delivery-cost.mjs). 500 bought nothing more. Set here, not among the shebang's
 * flags: Node 20 refuses the flag, and the shebang's version message must still reach its users;
 * and only a server lives long enough for it to matter.
 */
const TURBOFAN_INVOCATIONS = 1000;

/** The garbage the start-up's compilation of validators may make before it waits for a collection. */
const COMPILE_GARBAGE_BYTES = 8 * 1024 * 1024;

/**
 * Starts the API and its workers on an open core (the HTTP server, node:http and all, loads only
 * when one starts). Nothing is left listening when it fails: a port that cannot be had is one
 * sentence naming it; any other failure goes up as it is.
 */
export async function startServing(core: Core, host: string, port: number, opts: ApiOptions): Promise<RunningApi> {
  const { ListenError, startApi, collectOnGrowth, collectWhenQuiet } = await import('../http/app.js');
  process.getBuiltinModule('node:v8').setFlagsFromString(`--invocation-count-for-turbofan=${TURBOFAN_INVOCATIONS}`);
  try {
    const api = await startApi(core, host, port, opts);
    warmAtFirstCall(core);
    // the compilation's garbage is handed back as it grows, and once it is done
    compileValidatorsInBackground(collectWhenQuiet, collectOnGrowth(COMPILE_GARBAGE_BYTES));
    return api;
  } catch (err) {
    throw err instanceof ListenError ? new CliError(`${err.message}.`) : err;
  }
}

/**
 * Runs the connection paths once (`warmConnectionPaths`, on an API server of the warm-up's own,
 * left out of the metrics) when the server simulates its first call: before the code a burst of
 * calls and deliveries makes hot is optimised, and never on a server that only answers requests.
 * With a client connected since the server started whose connection closes after 3,000 calls (the
 * webhooks yardstick's readiness probe), the next 5,000 calls optimised 38 functions (90 ms)
 * instead of 61 (139 ms), at 196 µs a delivery instead of 210 (`scripts/bench/delivery-cost.mjs
 * HEAD . --idle-client --jit`). Run as the server started, it held 1-2 MiB more of a server's
 * RSS under authenticated GETs, where the GET yardstick's peak is near its 100 MiB bound.
 * `warm` is for tests.
 */
export function warmAtFirstCall(core: Core, warm: () => Promise<void> = () => warmOwnServer(core)): void {
  const unsubscribe = core.bus.subscribe((event) => {
    if (!event.type.startsWith('channel_')) return;
    unsubscribe();
    // outside the call's transaction, which the bus's subscribers run in
    setImmediate(() => void warm().catch(() => {}));
  });
}

/** The warm-up on an API server of its own over the core (it never fails: see warm-paths.ts). */
async function warmOwnServer(core: Core): Promise<void> {
  const [{ createApiServer }, { apiRouter }, { warmConnectionPaths }] = await Promise.all([
    import('../http/server.js'),
    import('../http/api-router.js'),
    import('../http/warm-paths.js'),
  ]);
  await warmConnectionPaths(createApiServer(core, apiRouter(), { counted: false }), '/v2/webhooks');
}
