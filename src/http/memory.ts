import { largeBodiesSince } from './body-gate.js';

/**
 * Memory a serving process gives back. A burst of large bodies (a 5 MB string, 100,000 keys) is
 * mostly garbage in V8's large-object space, which V8 leaves until its heap reaches a limit far
 * above that, and an idle process allocates nothing that would make V8 collect it: measured with
 * 600 hostile bodies, RSS stayed 270 MB up for as long as the server sat idle. So the server
 * collects its garbage itself once its heap and buffers grew by GROWTH_BYTES since the last
 * collection, at a quiet moment (the event loop mostly idle), or at once while large bodies are
 * coming in: one full collection, 20-40 ms here. Needs `--expose-gc`, which every launcher
 * passes (see bin/tel.js); without it, nothing is done.
 */

/** Heap and buffer growth since the last collection past which the server collects. */
const GROWTH_BYTES = 32 * 1024 * 1024;
/** How often the server looks. */
const TICK_MS = 250;
/** The event loop busy less than this share of the time since the last look: a quiet moment. */
const QUIET_UTILIZATION = 0.2;

function footprint(): number {
  const m = process.memoryUsage();
  return m.heapTotal + m.external;
}

/** Starts looking after the server's memory; answers the stop. */
export function tidyMemory(): () => void {
  const gc = (globalThis as { gc?: (options?: Record<string, string>) => void }).gc;
  if (typeof gc !== 'function') return () => {};
  let baseline = footprint();
  let elu = performance.eventLoopUtilization();
  let largeBodies = largeBodiesSince();
  const timer = setInterval(() => {
    const busy = performance.eventLoopUtilization(elu).utilization;
    elu = performance.eventLoopUtilization();
    const now = footprint();
    if (now < baseline) baseline = now;
    if (now - baseline < GROWTH_BYTES) return;
    const large = largeBodiesSince();
    if (busy >= QUIET_UTILIZATION && large === largeBodies) return;
    largeBodies = large;
    // V8's "last resort" collection also hands back the pages it keeps for reuse: measured after
    // a burst, RSS 258 → 116 MB where a plain full collection left it at 279
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    baseline = footprint();
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
