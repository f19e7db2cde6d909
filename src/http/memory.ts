import { createRequire } from 'node:module';
import { largeBodiesSince } from './body-gate.js';
import { nativeMemory } from './native-memory.js';
import { Counter, labels } from '../util/metrics.js';

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
 * Two collections. V8's low-memory one is DevTools' "collect garbage" button, asked through an
 * in-process inspector session (`HeapProfiler.collectGarbage`): it also hands back the pages V8
 * keeps for reuse and shrinks the young generation, 20-40 ms here. `vm.measureMemory`'s is an
 * ordinary one, marked in steps between the loop's turns. After 800 hostile bodies
 * (scripts/bench/hostile-memory.mjs) the ordinary one left RSS at 199 MB from 124 for the 30 s
 * after, the low-memory one 129 a second after (6,600 bodies: 121); a server that had served
 * nothing yet sat at 89 MB after its start-up's low-memory collection, 103 after an ordinary one.
 * But a low-memory collection also drops what V8 keeps for the code it has optimised: on a server
 * under load each was followed by 100-250 functions optimised again, 0.25-0.7 s of its thread
 * (`--trace-opt`), and the 5,000 deliveries after it cost 300-490 µs each instead of 180-200
 * (scripts/bench/delivery-cost.mjs). So the low-memory collection is made after large bodies and
 * on a server that has answered no request yet (nothing is optimised there to lose), and the
 * ordinary one otherwise. `gc()` gives the ordinary collection too, but `--expose-gc` made every
 * command's start-up 40% longer.
 *
 * The look after a collection also has glibc hand back what it keeps free in its heaps
 * (native-memory.ts): the buffers the collection freed, which V8 may free on a thread of its own
 * after the collection ends. A trim held the event loop 0.3-8 ms in the hostile-memory bench.
 * With it, and when the server starts, the executable's code pages leave the resident set: those
 * start-up mapped and the server does not run stay out (a release holds the loop 2-3.5 ms, most
 * of it the code the server runs coming back at once).
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
export const memoryCollections = new Counter(
  'tel_memory_collections_total',
  'Full garbage collections the server asked of V8 to give memory back, by kind: low_memory (holds the event loop 20-40 ms, and V8 optimises its hot code again after it) or ordinary (marked in steps).',
);

/** The label sets of memoryCollections. */
export const COLLECTION_KINDS = { lowMemory: labels({ kind: 'low_memory' }), ordinary: labels({ kind: 'ordinary' }) };

/** The trims of glibc's heaps after them (`GET /metrics`). */
export const memoryTrims = new Counter('tel_memory_trims_total', 'Times the server had glibc hand back the free memory inside its heaps, and took its executable\'s code pages out of its resident set, at the look after a collection.');

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

/** `requests` when the current server started to look after its memory (see warm). */
let requestsAtStart = 0;

/** True once the server has answered a request: its hot paths are optimised, which a low-memory collection throws away. */
function warm(): boolean {
  return requests !== requestsAtStart;
}

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
 * is that much lower. Each costs the event loop up to 20-40 ms, so none is made while requests
 * come (a client that starts at once, a number job): the work goes on, and its garbage waits for
 * the collection once it is done (collectWhenQuiet).
 */
export function collectOnGrowth(bytes: number): () => Promise<void> | undefined {
  const lowMemory = lowMemoryCollector();
  const heapUsed = () => process.memoryUsage().heapUsed;
  let base = heapUsed();
  let seenRequests = requests;
  return () => {
    const unasked = requests === seenRequests;
    seenRequests = requests;
    if (!unasked || heapUsed() - base < bytes) return undefined;
    const collect = counted(lowMemory, !warm());
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
  const lowMemory = lowMemoryCollector();
  // asked of an earlier server of this process (its start-up's work may end after it stopped)
  asked = false;
  requestsAtStart = requests;
  const native = nativeMemory();
  native?.releaseCode();
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
    if (trimDue && native) {
      trimDue = false;
      native.trim();
      native.releaseCode();
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
    const collect = counted(lowMemory, large !== largeBodies || !warm());
    waited = 0;
    largeBodies = large;
    asked = false;
    collecting = true;
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

/** A collection, calling `done` after it. */
type Collector = (done: () => void) => void;

/** The collection to make, counted: the low-memory one when `lowest` and this Node has it, else the ordinary one. */
function counted(lowMemory: Collector | undefined, lowest: boolean): Collector {
  const low = lowest && lowMemory !== undefined;
  memoryCollections.inc(low ? COLLECTION_KINDS.lowMemory : COLLECTION_KINDS.ordinary);
  return low ? lowMemory : ordinaryCollection;
}

/**
 * V8's low-memory collection through the inspector (see above), calling `done` after it; none
 * when this Node was built without the inspector. node:inspector is loaded when a server starts,
 * so that other commands do not pay for it at start-up.
 */
function lowMemoryCollector(): Collector | undefined {
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

/**
 * V8's ordinary full collection (see above), calling `done` after it. `vm.measureMemory` is
 * marked experimental, and Node warns of it on stderr the first time: that warning is not the
 * user's business, so it is not passed on (any other still is).
 */
function ordinaryCollection(done: () => void): void {
  const { measureMemory } = process.getBuiltinModule('node:vm');
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning).includes('measureMemory')) Reflect.apply(emitWarning, process, [warning, ...rest]);
  };
  try {
    measureMemory({ mode: 'summary', execution: 'eager' }).then(done, done);
  } finally {
    process.emitWarning = emitWarning;
  }
}
