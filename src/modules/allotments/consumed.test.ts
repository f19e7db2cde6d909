import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { nowGregorian } from '../../util/time.js';
import { cycleEnd, cycleStart } from './module.js';

describe('allotments/consumed: what calls took of each allotment', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const call = (seconds: number) =>
    srv.request('PUT', `/v2/accounts/${account}/simulations`, {
      token,
      data: { kind: 'call', caller_id_number: '+14155550100', callee_id_number: '+18005550199', duration_seconds: seconds + 5, ringing_seconds: 5 },
    });

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Allotted');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
  });
  afterAll(() => srv?.close());

  it("counts each call's billed seconds in increments against its class's allotment, until the allotment is spent", async () => {
    const none = await srv.request('GET', `/v2/accounts/${account}/allotments/consumed`, { token });
    expect(none.status).toBe(400);
    const set = await srv.request('POST', `/v2/accounts/${account}/allotments`, {
      token: srv.adminToken,
      data: { inbound_tollfree_us: { amount: 120, cycle: 'monthly', increment: 60 }, did_us: { amount: 600, cycle: 'daily' } },
    });
    expect(set.status, set.text).toBe(200);
    expect((await srv.request('GET', `/v2/accounts/${account}/allotments/consumed`, { token })).body.data).toEqual({});
    // 60 s; 20 s taken as a whole increment (120: all of it); 10 s taken as 60 (the allotment was spent, not yet overdrawn, when the call began); then nothing
    for (const s of [60, 20, 10, 30]) expect((await call(s)).status).toBe(201);
    const r = await srv.request('GET', `/v2/accounts/${account}/allotments/consumed`, { token });
    expect(r.status, r.text).toBe(200);
    const now = nowGregorian();
    expect(r.body.data).toEqual({
      inbound_tollfree_us: { cycle: 'monthly', consumed_from: cycleStart('monthly', now), consumed_to: cycleEnd('monthly', now), consumed: 180 },
    });
    const manual = await srv.request('GET', `/v2/accounts/${account}/allotments/consumed?created_from=${now - 3600}&created_to=${now + 60}`, { token });
    expect(manual.body.data.inbound_tollfree_us).toEqual({ cycle: 'manual', consumed_from: now - 3600, consumed_to: now + 60, consumed: 180 });
    const before = await srv.request('GET', `/v2/accounts/${account}/allotments/consumed?created_from=${now - 7200}&created_to=${now - 3600}`, { token });
    expect(before.body.data).toEqual({});
    expect((await srv.request('GET', `/v2/accounts/${account}/allotments/consumed?created_from=${now - 40 * 86400}&created_to=${now}`, { token })).status).toBe(400);
  });

  it('reads the cycles of a weekly and a monthly allotment together, though their span is wider than a listing may be', async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Weekly and monthly');
    const set = await srv.request('POST', `/v2/accounts/${other.id}/allotments`, {
      token: srv.adminToken,
      data: { did_us: { amount: 600, cycle: 'weekly' }, inbound_tollfree_us: { amount: 120, cycle: 'monthly' } },
    });
    expect(set.status, set.text).toBe(200);
    // 2024-02-01 12:00 UTC: its week began on Monday 29 January, its month ends on 1 March (32 days)
    const r = await srv.request('GET', `/v2/accounts/${other.id}/allotments/consumed?created_from=63874008000`, { token: srv.adminToken });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({});
  });

  it("cycles start and end as Kazoo's do (UTC)", () => {
    // 2024-02-14 (a Wednesday) 13:45:30 UTC in Gregorian seconds
    const at = 63_875_137_530;
    const day = 63_875_088_000;
    expect(cycleStart('daily', at)).toBe(day);
    expect(cycleEnd('daily', at)).toBe(day + 86_400);
    expect(cycleStart('weekly', at)).toBe(day - 2 * 86_400);
    expect(cycleStart('monthly', at)).toBe(day - 13 * 86_400);
    expect(cycleEnd('monthly', at)).toBe(day + 16 * 86_400);
    expect(cycleStart('hourly', at)).toBe(day + 13 * 3600);
    expect(cycleStart('minutely', at)).toBe(day + 13 * 3600 + 45 * 60);
  });
});
