import { setFlagsFromString } from 'node:v8';
import { compileValidators } from '../schema/validate.js';

/**
 * Readies a listening server for hours of the same request and delivery code. Its JSON Schemas
 * are compiled in the background, one a turn (requests are answered in between, and later ones
 * find their schema ready). Then V8 is told to compile hot code with its optimising compiler after
 * 100 calls instead of 3,000 (and 100, not 500, after its type feedback last changed), skipping
 * the middle tier (Maglev): measured on a stream of simulated calls and deliveries, the server
 * reaches its steady speed within a few thousand calls instead of some fifteen thousand, spending
 * a fifth less CPU a call in between (once both are warm they differ by a few percent). A burst
 * of 5,000 calls after the first 200 ran 1.02-1.23 times as fast in its first round as with 200
 * and 500 (four pairs of runs). Set only then (V8's flags are not frozen under Node): commands
 * that run for a moment, a server's start-up and the schema compiler keep V8's defaults, and
 * their code is not optimised for nothing. (That optimising runs on the main thread: a start-up
 * flag, see bin/tel.js.)
 */
export function prepareForServing(): void {
  const next = () => {
    if (compileValidators(1) > 0) setImmediate(next).unref();
    else {
      setFlagsFromString('--no-maglev');
      setFlagsFromString('--invocation-count-for-turbofan=100');
      setFlagsFromString('--minimum-invocations-after-ic-update=100');
    }
  };
  setImmediate(next).unref();
}
