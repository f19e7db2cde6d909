import { PerformanceObserver, constants } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { largeBodySlot } from './body-gate.js';
import { COLLECTION_KINDS, collectOnGrowth, collectWhenQuiet, memoryCollections, noteRequest, tidyMemory } from './memory.js';

/** Full (mark-compact) collections of this process during `ms` of an idle event loop. */
async function fullCollectionsWithin(ms: number): Promise<number> {
  let full = 0;
  const observer = new PerformanceObserver((list) => {
    // a gc entry's detail is { kind, flags } (not in the entry's declared type)
    for (const e of list.getEntries()) if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
  });
  observer.observe({ entryTypes: ['gc'] });
  await new Promise((resolve) => setTimeout(resolve, ms));
  observer.disconnect();
  return full;
}

/** Node's warnings in this process since the file loaded (the ordinary collection's API is marked experimental). */
const warnings: string[] = [];
process.on('warning', (w) => warnings.push(String(w)));

/** The collections the server asked for so far, by kind (`GET /metrics`). */
function asked(): { lowMemory: number; ordinary: number } {
  return { lowMemory: memoryCollections.get(COLLECTION_KINDS.lowMemory), ordinary: memoryCollections.get(COLLECTION_KINDS.ordinary) };
}

/** The kinds of the collections asked for during `ms`. */
async function kindsAskedWithin(ms: number): Promise<{ lowMemory: number; ordinary: number }> {
  const before = asked();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = asked();
  return { lowMemory: after.lowMemory - before.lowMemory, ordinary: after.ordinary - before.ordinary };
}

/** Collections the server asked for during `ms`, of either kind (V8 makes its own on a large allocation). */
async function collectionsAskedWithin(ms: number): Promise<number> {
  const { lowMemory, ordinary } = await kindsAskedWithin(ms);
  return lowMemory + ordinary;
}

describe('a serving process hands its memory back', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  // what the server asks of V8, counted: V8 makes collections of its own, which a test process busy beside others may make at any time
  it('without growth nor large bodies, an idle server does not collect', async () => {
    stop = tidyMemory();
    expect(await collectionsAskedWithin(800)).toBe(0);
  });

  it("a collection asked of a server that has stopped is not made by the next one (a start-up's work may end after its stop)", async () => {
    collectWhenQuiet();
    stop = tidyMemory();
    expect(await collectionsAskedWithin(800)).toBe(0);
  });

  it("asked, it waits for a look at which no request came (an idle loop still answering a job's GETs is not quiet)", async () => {
    stop = tidyMemory();
    collectWhenQuiet();
    const requests = setInterval(noteRequest, 50);
    try {
      expect(await collectionsAskedWithin(800)).toBe(0);
    } finally {
      clearInterval(requests);
    }
    expect(await collectionsAskedWithin(800)).toBeGreaterThan(0);
  });

  it('grown, it waits for a look at which no request came, or collects with them after two seconds', async () => {
    stop = tidyMemory();
    // held for the whole test: the heap's footprint stays grown until a collection takes it as the new baseline
    const grown = Buffer.alloc(40 * 1024 * 1024, 1);
    const requests = setInterval(noteRequest, 50);
    try {
      expect(await collectionsAskedWithin(800)).toBe(0);
      // eight looks of patience after the first 800 ms; a look the suite's load makes busy (its
      // timers late) starts the patience again, so the wait is given room past its two seconds
      expect(await collectionsAskedWithin(3500)).toBeGreaterThan(0);
    } finally {
      clearInterval(requests);
    }
    expect(await collectionsAskedWithin(800)).toBe(0);
    expect(grown.length).toBe(40 * 1024 * 1024);
  });

  it('asked (once its start-up is done), it collects at its next quiet moment, once', async () => {
    stop = tidyMemory();
    collectWhenQuiet();
    expect(await collectionsAskedWithin(800)).toBeGreaterThan(0);
    expect(await collectionsAskedWithin(800)).toBe(0);
  });
});

describe('the collection a server asks for', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('is the low-memory one while it has answered no request (nothing optimised to lose)', async () => {
    stop = tidyMemory();
    collectWhenQuiet();
    expect(await kindsAskedWithin(800)).toEqual({ lowMemory: 1, ordinary: 0 });
  });

  it('is the ordinary one once it has answered requests: the low-memory one throws away what V8 optimised', async () => {
    stop = tidyMemory();
    noteRequest();
    collectWhenQuiet();
    expect(await kindsAskedWithin(800)).toEqual({ lowMemory: 0, ordinary: 1 });
    const grown = Buffer.alloc(40 * 1024 * 1024, 1);
    expect(await kindsAskedWithin(800)).toEqual({ lowMemory: 0, ordinary: 1 });
    expect(grown.length).toBe(40 * 1024 * 1024);
    expect(warnings.filter((w) => w.includes('measureMemory')), 'Node warns of nothing the user did').toEqual([]);
  });

  it('either kind is a full collection V8 makes (the ordinary one marked in steps, so within seconds under load)', async () => {
    stop = tidyMemory();
    collectWhenQuiet();
    expect(await fullCollectionsWithin(3000), 'low-memory').toBeGreaterThan(0);
    stop();
    stop = tidyMemory();
    noteRequest();
    collectWhenQuiet();
    const before = asked().ordinary;
    expect(await fullCollectionsWithin(3000), 'ordinary').toBeGreaterThan(0);
    expect(asked().ordinary).toBe(before + 1);
  });

  it('is the low-memory one after large bodies, answered requests or not', async () => {
    stop = tidyMemory();
    noteRequest();
    const release = await largeBodySlot();
    release();
    expect(await kindsAskedWithin(800)).toEqual({ lowMemory: 1, ordinary: 0 });
  });

  it("at start-up's growth, is the ordinary one once requests were answered", async () => {
    stop = tidyMemory();
    const pause = collectOnGrowth(16 * 1024 * 1024);
    let garbage: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `member ${i}` }));
    garbage = undefined;
    noteRequest();
    expect(pause(), 'a request came since the last look').toBeUndefined();
    const before = asked();
    await pause();
    expect(asked()).toEqual({ lowMemory: before.lowMemory, ordinary: before.ordinary + 1 });
    void garbage;
  });
});

describe("start-up work's garbage", () => {
  it('is collected once it has grown by the given bytes and no request came since the last look, the work waiting for it', async () => {
    const pause = collectOnGrowth(16 * 1024 * 1024);
    expect(pause(), 'no growth yet: nothing to wait for').toBeUndefined();
    // garbage of the kind a compilation leaves: many small objects, dropped at once
    let garbage: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `member ${i}` }));
    garbage = undefined;
    // a request came meanwhile: not now (a collection would hold it 20-40 ms), the work goes on
    noteRequest();
    expect(pause(), 'grown, but a request came since the last look').toBeUndefined();
    // the ordinary collection (a request was answered) is marked in steps: room for a loaded machine
    const full = fullCollectionsWithin(3000);
    const collection = pause();
    expect(collection, 'grown past the bound: a collection to wait for').toBeInstanceOf(Promise);
    await collection;
    expect(await full).toBeGreaterThanOrEqual(1);
    expect(pause(), 'collected: the growth counts again from here').toBeUndefined();
    void garbage;
  });
});
