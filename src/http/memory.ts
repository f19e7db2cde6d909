import { createRequire } from 'node:module';
import { largeBodiesSince } from './body-gate.js';
import { mallocTrim } from './malloc-trim.js';
import { Counter } from '../util/metrics.js';

/**
 * Memory a serving process gives back. A burst of large bodies (a 5 MB string, 100,000 keys) is
 * mostly garbage in V8's large-object space and in the buffers node:http copies a body's pieces
 * into, which V8 leaves until its heap reaches a limit far above that; and an idle process
 * allocates nothing that would make V8 collect it: measured with 600 hostile bodies, RSS stayed
 * 270 MB up for as long as the server sat idle. So the server has its garbage collected once its
 * heap and buffers grew by GROWTH_BYTES since the last collection, at a quiet moment (the event
 * loop mostly idle) or at once while large bodies are coming in; and at the first quiet moment
 * after large bodies, or after its start-up's work (collectWhenQuiet), whatever the growth.
 *
 * The collection is the one of DevTools' "collect garbage" button, asked of V8 through an
 * in-process inspector session (`HeapProfiler.collectGarbage`): V8's low-memory collection, which
 * also hands back the pages V8 keeps for reuse and shrinks the young generation, 20-40 ms here.
 * `vm.measureMemory`'s collection is an ordinary one: with it, 800 hostile bodies
 * (scripts/bench/hostile-memory.mjs) left RSS at 199 MB from 124 for the 30 s after; with this
 * one, 129 a second after; 6,600 bodies, 121 a second after. `gc()` gives the same collection,
 * but `--expose-gc` made every command's start-up 40% longer.
 *
 * The look after a collection also has glibc hand back what it keeps free in its heaps
 * (malloc-trim.ts): the buffers the collection freed, which V8 may free on a thread of its own
 * after the collection ends. A trim held the event loop 0.3-8 ms in the hostile-memory bench.
 */

/** Heap and buffer growth since the last collection past which the server collects. */
const GROWTH_BYTES = 32 * 1024 * 1024;
/** How often the server looks. */
const TICK_MS = 250;
/** The event loop busy less than this share of the time since the last look: a quiet moment. */
const QUIET_UTILIZATION = 0.2;
/**
 * Looks for which a collection due on growth waits for one at which no request came: an idle
 * loop may still be answering (a number job's thread works while its progress is polled), and
 * the collection (40-50 ms) held a GET that long in `../shared/bench/jobs.mjs`. After these it
 * collects all the same, so that a steady trickle of requests does not keep the memory.
 */
const PATIENCE_LOOKS = 8;

/** The collections the server asked for (`GET /metrics`). */
export const memoryCollections = new Counter('tel_memory_collections_total', 'Full garbage collections the server asked of V8 to give memory back (each holds the event loop 20-40 ms).');

/** The trims of glibc's heaps after them (`GET /metrics`). */
export const memoryTrims = new Counter('tel_memory_trims_total', 'Times the server had glibc hand back the free memory inside its heaps, at the look after a collection.');

/** A collection is asked for at the next quiet moment, whatever the growth (see collectWhenQuiet). */
let asked = false;

/**
 * Asks the server to collect at its next quiet moment, whatever its growth: for the garbage of its
 * start-up, once that is done. Compiling the JSON Schemas' validators (schema/validate.ts) grows
 * the heap to its young generation's cap and leaves it there: measured after `tel serve` started,
 * 98 MB of RSS, 84 after this collection; then under 300,000 authenticated GETs (50 connections)
 * a peak of 108 MB instead of 117.
 */
export function collectWhenQuiet(): void {
  asked = true;
}

/** Requests the server has taken in (see noteRequest). */
let requests = 0;

/**
 * Counts a request: the collection asked for by collectWhenQuiet waits for a look at which none
 * came. An idle event loop is not enough: while a number job's thread works, the loop is idle
 * and still answering, and the collection (two full ones, 40-60 ms) held a GET that long.
 */
export function noteRequest(): void {
  requests++;
}

/**
 * What start-up work that makes much garbage (compileValidatorsInBackground) may wait for between
 * its steps: once the heap has grown by `bytes` since the last collection, a collection now (none
 * otherwise). Compiling the JSON Schemas of every kind grows the heap by some 20 MB, most of it
 * garbage, before the collection after it: with one every `bytes`, a server's peak at start-up
 * is that much lower. Each costs the event loop 20-40 ms, so none is made while requests come
 * (a client that starts at once, a number job): the work goes on, and its garbage waits for the
 * collection once it is done (collectWhenQuiet).
 */
export function collectOnGrowth(bytes: number): () => Promise<void> | undefined {
  const collect = collector();
  if (!collect) return () => undefined;
  const heapUsed = () => process.memoryUsage().heapUsed;
  let base = heapUsed();
  let seenRequests = requests;
  return () => {
    const unasked = requests === seenRequests;
    seenRequests = requests;
    if (!unasked || heapUsed() - base < bytes) return undefined;
    memoryCollections.inc();
    return new Promise((resolve) =>
      collect(() => {
        base = heapUsed();
        resolve();
      }),
    );
  };
}

function footprint(): number {
  const m = process.memoryUsage();
  return m.heapTotal + m.external;
}

/** Starts looking after the server's memory; answers the stop. */
export function tidyMemory(): () => void {
  const collect = collector();
  if (!collect) return () => {};
  // asked of an earlier server of this process (its start-up's work may end after it stopped)
  asked = false;
  const trim = mallocTrim();
  let trimDue = false;
  let baseline = footprint();
  let elu = performance.eventLoopUtilization();
  let largeBodies = largeBodiesSince();
  let collecting = false;
  let seenRequests = requests;
  let waited = 0;
  const timer = setInterval(() => {
    const quiet = performance.eventLoopUtilization(elu).utilization < QUIET_UTILIZATION;
    elu = performance.eventLoopUtilization();
    const unasked = requests === seenRequests;
    seenRequests = requests;
    if (collecting) return;
    if (trimDue && trim) {
      trimDue = false;
      trim();
      memoryTrims.inc();
    }
    const now = footprint();
    if (now < baseline) baseline = now;
    const grown = now - baseline >= GROWTH_BYTES;
    const large = largeBodiesSince();
    // After large bodies: at a quiet moment, or on growth while they come. Else on growth or when
    // asked, at a quiet moment at which no request came (on growth, at one with requests too
    // once it has waited PATIENCE_LOOKS).
    const wanted = quiet && (grown || asked);
    waited = wanted && !unasked ? waited + 1 : 0;
    const due = large !== largeBodies ? quiet || grown : wanted && (unasked || (grown && waited > PATIENCE_LOOKS));
    if (!due) return;
    waited = 0;
    largeBodies = large;
    asked = false;
    collecting = true;
    memoryCollections.inc();
    collect(() => {
      collecting = false;
      trimDue = true;
      baseline = footprint();
    });
  }, TICK_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    asked = false;
  };
}

/**
 * V8's low-memory collection through the inspector (see above), calling `done` after it; none
 * when this Node was built without the inspector. node:inspector is loaded when a server starts,
 * so that other commands do not pay for it at start-up.
 */
function collector(): ((done: () => void) => void) | undefined {
  if (!process.features.inspector) return undefined;
  const { Session } = createRequire(import.meta.url)('node:inspector') as typeof import('node:inspector');
  return (done) => {
    const session = new Session();
    session.connect();
    session.post('HeapProfiler.collectGarbage', () => {
      // not from within this callback: V8 calls it holding a lock that disconnecting takes, and
      // the process hangs for good
      setImmediate(() => {
        session.disconnect();
        done();
      });
    });
  };
}
