import { createRequire } from 'node:module';

/**
 * Keeps one of the entries `process.nextTick` queues alive for as long as the process runs.
 *
 * node:http queues about seven per request. Node builds each entry as an object literal with
 * symbol keys, and V8 learns the hidden classes (maps) the literal goes through as it is filled;
 * it holds them weakly. A full collection at a moment when no entry is queued (any idle moment)
 * lets them go, the next entry finds new ones, and what V8 learned turns generic for good: from
 * then on every entry is filled through three calls into V8's runtime instead of plain stores.
 * A server meets such a collection early (its start-up makes several). Measured on `GET /v2/accounts/{id}` (one
 * core, 50 connections): 165,000 → 124,000 instructions a request (callgrind), `nextTick` 4.5 →
 * 0.45 µs of a request's CPU (--cpu-prof), 0.48 → 0.86 of bare node:http's requests per second
 * (../shared/bench/api.mjs, back-to-back runs on a busy machine).
 * One entry kept alive keeps those maps, so what V8 learned stays exact. tick-shape.test.ts
 * shows the loss without it and its absence with it.
 */
let kept: object | undefined;

/** Keeps a queued-callback entry of this process alive (once; later calls do nothing). */
export function keepTickShape(): void {
  if (kept) return;
  // loaded here, not imported: only a server needs it, and every command's start-up would pay for it
  const { createHook } = createRequire(import.meta.url)('node:async_hooks') as typeof import('node:async_hooks');
  // The entry is handed to async hooks' `init` as the resource of its tick: the one way to reach it.
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
}
