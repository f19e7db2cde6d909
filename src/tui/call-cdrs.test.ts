import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDetailLines } from './detail-lines.js';
import { openWatchSource } from './sqlite-source.js';
import { startWatchFixture, type WatchFixture } from './test-fixture.js';

let fx: WatchFixture;
beforeAll(async () => {
  fx = await startWatchFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe("tel watch: a call's CDRs beside the delivery of its event", () => {
  it("an attempt of a channel event shows each leg's CDR: direction, duration, billing, hangup cause", async () => {
    await fx.call();
    const source = openWatchSource(fx.core);
    const [latest] = source.attemptsBefore(Number.MAX_SAFE_INTEGER, 1);
    const detail = source.attempt(latest.id)!;
    expect(detail.call).toHaveLength(2);
    expect(detail.call!.map((l) => l.direction)).toEqual(['inbound', 'outbound']);
    expect(detail.call![0]).toMatchObject({ durationSeconds: 30, billingSeconds: 26, hangupCause: 'NORMAL_CLEARING' });
    const text = attemptDetailLines(detail).map((l) => l.text);
    expect(text).toContain('Call (2 CDRs)');
    expect(text.find((t) => t.includes(detail.call![0].cdrId))).toMatch(/inbound\s+30s\s+billed\s+26s\s+NORMAL_CLEARING/);
  });
});
