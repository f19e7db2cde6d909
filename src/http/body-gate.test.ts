import { describe, expect, it } from 'vitest';
import { largeBodiesSince, largeBodySlot } from './body-gate.js';

describe('the gate of large bodies', () => {
  it('lets two in at a time; the third waits for a release, and a release counts once', async () => {
    const before = largeBodiesSince();
    const first = await largeBodySlot();
    const second = await largeBodySlot();
    let third: (() => void) | undefined;
    const waiting = largeBodySlot().then((release) => (third = release));
    await new Promise((r) => setImmediate(r));
    expect(third).toBeUndefined();
    first();
    first();
    await waiting;
    expect(third).toBeTypeOf('function');
    // the double release above did not open a fourth slot
    let fourth: (() => void) | undefined;
    const alsoWaiting = largeBodySlot().then((release) => (fourth = release));
    await new Promise((r) => setImmediate(r));
    expect(fourth).toBeUndefined();
    second();
    await alsoWaiting;
    third!();
    fourth!();
    expect(largeBodiesSince() - before).toBe(4);
  });
});
