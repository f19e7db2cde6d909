import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module shared with scripts/fuzz/memory.mjs
import { fuzz } from '../../scripts/fuzz/hostile.mjs';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

/** Seeded, so a failure replays: the seed and the request are in the message. */
const SEED = 20261124;
const COUNT = 3000;

describe('a seeded fuzz of hostile requests', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv.close());

  it(`answers ${COUNT} generated requests without a 5xx, always as JSON, and stays up`, async () => {
    const result = await fuzz(srv.api.port, {
      seed: SEED,
      count: COUNT,
      concurrency: 8,
      token: srv.adminToken,
      accountId: srv.master.account_id,
      maxString: 64 * 1024,
    });
    expect(result.sent).toBe(COUNT);
    expect(result.problems).toEqual([]);
    expect(Object.keys(result.byStatus).length).toBeGreaterThan(5);
    const after = await srv.request('GET', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken });
    expect(after.status).toBe(200);
  }, 60_000);
});
