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
  it("an attempt of a channel event shows each leg's CDR beside its event: direction, duration, billing, hangup cause", async () => {
    await fx.call();
    const source = openWatchSource(fx.core);
    const [latest] = source.attemptsBefore(Number.MAX_SAFE_INTEGER, 1);
    const detail = source.attempt(latest.id)!;
    expect(detail.call).toHaveLength(2);
    expect(detail.call!.map((l) => l.direction)).toEqual(['inbound', 'outbound']);
    expect(detail.call![0]).toMatchObject({ durationSeconds: 30, billingSeconds: 26, hangupCause: 'NORMAL_CLEARING' });
    const event = attemptDetailLines(detail).find((l) => l.text.startsWith('Event'))!.text;
    expect(event).toMatch(/channel_create\s+CDRs: inbound 30s billed 26s NORMAL_CLEARING · outbound 30s billed 26s NORMAL_CLEARING$/);
  });
});
