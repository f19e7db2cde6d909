import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { nowGregorian } from '../../util/time.js';
import { CDR_COLUMNS, RESELLER_COLUMNS } from './rows.js';

describe('CDRs of simulated calls, as Kazoo lists them', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  let user: string;
  let device: string;
  const get = (path: string) => srv.request('GET', `/v2/accounts/${account}${path}`, { token });

  async function call(data: Record<string, unknown>) {
    const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', ...data } });
    expect(r.status).toBe(201);
    return r.body.data.events as Record<string, any>[];
  }

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Calls Inc');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    user = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { username: 'ann', first_name: 'Ann', last_name: 'Lee' } })).body.data.id;
    device = (await srv.request('PUT', `/v2/accounts/${account}/devices`, { token, data: { name: 'desk', owner_id: user, sip: { username: 'ann-desk', password: 'pw-12345' } } })).body.data.id;
  });
  afterAll(() => srv.close());

  it('a bridged call leaves two legs of one interaction: listed with Kazoo columns, each readable whole', async () => {
    const events = await call({ caller_id_number: '+14155550100', callee_id_number: '+14155550199', duration_seconds: 65, ringing_seconds: 5 });
    const callId = events[0].call_id as string;
    const other = events.find((e) => e.event === 'channel_bridge')!.other_leg_call_id as string;
    const list = await get('/cdrs');
    expect(list.status).toBe(200);
    const legs = (list.body.data as Record<string, any>[]).filter((r) => r.call_id === callId || r.call_id === other);
    expect(legs).toHaveLength(2);
    const a = legs.find((r) => r.call_id === callId)!;
    expect(Object.keys(a)).toEqual([...CDR_COLUMNS]);
    expect(a).toMatchObject({ direction: 'inbound', duration_seconds: 65, billing_seconds: 60, other_leg_call_id: other, dialed_number: '+14155550199', calling_from: '+14155550100', cost: '0' });
    expect(Number(a.timestamp)).toBeGreaterThan(nowGregorian() - 70);
    expect(a.datetime).toMatch(/^\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d$/);
    expect(legs.find((r) => r.call_id === other)).toMatchObject({ direction: 'outbound', other_leg_call_id: callId, interaction_id: a.interaction_id });
    const one = await get(`/cdrs/${a.id}`);
    expect(one.body.data).toMatchObject({ id: a.id, call_id: callId, hangup_cause: 'NORMAL_CLEARING', hangup_code: 'sip:200', ringing_seconds: 5 });
    expect(one.body.data.custom_channel_vars).toMatchObject({ account_id: account, bridge_id: callId });
    const byLegs = await get(`/cdrs/legs/${a.interaction_id}?ascending=true`);
    expect(byLegs.body.data.map((c: { call_id: string }) => c.call_id)).toEqual([callId, other]);
    const byCdr = await get(`/cdrs/legs/${a.id}`);
    expect(byCdr.body.data.map((c: { call_id: string }) => c.call_id)).toEqual([other, callId]);
    const interactions = await get('/cdrs/interaction');
    expect(interactions.body.data.filter((r: { interaction_id: string }) => r.interaction_id === a.interaction_id).map((r: { call_id: string }) => r.call_id)).toEqual([callId]);
  });

  it("a user's and a device's CDRs are theirs only; an unknown one is a 404", async () => {
    const [mine] = await call({ device_id: device, answer: false, hangup_cause: 'NO_ANSWER' });
    await call({});
    for (const path of [`/users/${user}/cdrs`, `/devices/${device}/cdrs`]) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect(r.body.data.map((c: { call_id: string }) => c.call_id)).toEqual([mine.call_id]);
      expect(r.body.data[0]).toMatchObject({ owner_id: user, authorizing_id: device, hangup_cause: 'NO_ANSWER', billing_seconds: 0 });
    }
    expect((await get('/users/0123456789abcdef0123456789abcdef/cdrs')).status).toBe(404);
  });

  it('newest first, paged by next_start_key; ascending=true turns it round', async () => {
    const all = (await get('/cdrs')).body.data.map((r: { id: string }) => r.id);
    const walked: string[] = [];
    let key: string | undefined;
    do {
      const page = await get(`/cdrs?page_size=2${key ? `&start_key=${key}` : ''}`);
      walked.push(...page.body.data.map((r: { id: string }) => r.id));
      key = page.body.next_start_key;
    } while (key);
    expect(walked).toEqual(all);
    const asc = (await get('/cdrs?ascending=true')).body.data.map((r: { id: string }) => r.id);
    expect(asc).toEqual([...all].reverse());
  });

  it('created_from/created_to bound the window as Kazoo checks them', async () => {
    const now = nowGregorian();
    expect((await get(`/cdrs?created_from=${now - 3600}&created_to=${now + 5}`)).body.data.length).toBeGreaterThan(0);
    expect((await get(`/cdrs?created_from=${now - 7200}&created_to=${now - 3600}`)).body.data).toEqual([]);
    const reversed = await get(`/cdrs?created_from=${now}&created_to=${now - 10}`);
    expect(reversed.status).toBe(400);
    expect(reversed.body.data.created_from.date_range).toMatchObject({ message: `created_to ${now - 10} is prior to created_from ${now}`, cause: now });
    const wide = await get(`/cdrs?created_from=${now - 40 * 86400}&created_to=${now}`);
    expect(wide.status).toBe(400);
    expect(wide.body.data.created_from.date_range.message).toBe(`created_to ${now} is more than 2682000 seconds from created_from ${now - 40 * 86400}`);
  });

  it('utc_offset moves the datetime column; a reseller sees its columns', async () => {
    const [plain] = (await get('/cdrs?page_size=1')).body.data;
    const [shifted] = (await get('/cdrs?page_size=1&utc_offset=3600')).body.data;
    const hour = (d: string) => Number(d.slice(11, 13));
    expect((hour(shifted.datetime) - hour(plain.datetime) + 24) % 24).toBe(1);
    const bad = await get('/cdrs?utc_offset=soon');
    expect(bad.status).toBe(404);
    expect(bad.body.message).toBe('utc_offset must be a number');
    const [asReseller] = (await srv.request('GET', `/v2/accounts/${account}/cdrs?page_size=1`, { token: srv.adminToken })).body.data;
    expect(Object.keys(asReseller)).toEqual([...CDR_COLUMNS, ...RESELLER_COLUMNS]);
  });

  it("the call and interaction ids a simulation makes up sort in the order of the calls: each CDR's keys go at the end of their indexes", async () => {
    const sub = await createSubAccount(srv, account, 'Ordered', token);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await srv.request('PUT', `/v2/accounts/${sub.id}/simulations`, { token, data: { kind: 'call', answer: i % 2 === 0 } });
      ids.push(r.body.data.events[0].call_id);
      // a millisecond apart: within one, the ids' random parts order them
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}@/);
    // the order SQLite keeps the CDRs' primary key in is the order they were written in
    const rows = srv.core.db.prepare("SELECT json_extract(doc, '$.call_id') AS call_id FROM cdrs WHERE account_id = ? ORDER BY id").all(sub.id) as { call_id: string }[];
    const firstLegs = rows.map((r) => r.call_id).filter((c) => ids.includes(c));
    expect(firstLegs).toEqual(ids);
    // Kazoo's form (Gregorian seconds, 8 hex digits), in the order of the calls too
    const byInteraction = srv.core.db
      .prepare("SELECT interaction_id, json_extract(doc, '$.call_id') AS call_id FROM cdrs WHERE account_id = ? ORDER BY interaction_id")
      .all(sub.id) as { interaction_id: string; call_id: string }[];
    for (const r of byInteraction) expect(r.interaction_id).toMatch(/^\d{11}-[0-9a-f]{8}$/);
    expect(byInteraction.map((r) => r.call_id).filter((c) => ids.includes(c))).toEqual(ids);
  });

  it("interactions and their legs come from one index: a walk of bridged calls' interactions meets each once, in order", async () => {
    const sub = await createSubAccount(srv, account, 'Bridged', token);
    const firstLegs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await srv.request('PUT', `/v2/accounts/${sub.id}/simulations`, { token, data: { kind: 'call', duration_seconds: i } });
      firstLegs.push(r.body.data.events[0].call_id);
    }
    const at = (path: string) => srv.request('GET', `/v2/accounts/${sub.id}${path}`, { token });
    const walked: { call_id: string; interaction_id: string }[] = [];
    let key: string | undefined;
    do {
      const page = await at(`/cdrs/interaction?page_size=2${key ? `&start_key=${encodeURIComponent(key)}` : ''}`);
      expect(page.status).toBe(200);
      walked.push(...page.body.data);
      key = page.body.next_start_key;
    } while (key);
    // newest first: the interaction ids (Gregorian second first) descending, one row each, its first leg
    const ids = walked.map((r) => r.interaction_id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(walked.map((r) => r.call_id).sort()).toEqual([...firstLegs].sort());
    const asc = (await at('/cdrs/interaction?ascending=true')).body.data.map((r: { interaction_id: string }) => r.interaction_id);
    expect(asc).toEqual([...ids].reverse());
    const legs = await at(`/cdrs/legs/${ids[0]}?ascending=true`);
    expect(legs.body.data).toHaveLength(2);
    // every index a CDR goes into writes its last page again at each commit of the calls: the
    // interactions (first legs) and the legs share one
    const plan = (sql: string, ...args: (string | number)[]) =>
      (srv.core.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan('SELECT doc FROM cdrs WHERE account_id = ? AND first_leg = 1 AND interaction_time >= ? ORDER BY interaction_time DESC, interaction_id DESC', sub.id, 0)).toMatch(
      /^SEARCH cdrs USING INDEX cdrs_interaction \(account_id=\? AND first_leg=\? AND interaction_time>\?\)$/,
    );
    const indexes = srv.core.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'cdrs' ORDER BY name").all() as { name: string }[];
    expect(indexes.map((r) => r.name)).toEqual(['cdrs_authorizing', 'cdrs_created', 'cdrs_interaction', 'cdrs_owner', 'sqlite_autoindex_cdrs_1']);
  });

  it('ids Kazoo would not find are 404s', async () => {
    const notCdr = await get('/cdrs/not-a-cdr');
    expect(notCdr.status).toBe(404);
    expect(notCdr.body.message).toBe('could not find cdr with supplied id');
    expect((await get('/cdrs/202001-nobody@nowhere')).status).toBe(404);
    expect((await get('/cdrs/legs/202001-nobody@nowhere')).body.message).toBe('could not find legs for supplied id');
    expect((await get('/cdrs/legs/nothing')).status).toBe(404);
  });

  it("another account's token cannot read them", async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Elsewhere');
    const r = await srv.request('GET', `/v2/accounts/${account}/cdrs`, { token: await srv.apiLogin(other.apiKey) });
    expect(r.status).toBe(403);
  });
  it("cdrs/summary sums the billable seconds of the window's outside legs by direction, domain and number class", async () => {
    const sub = await createSubAccount(srv, account, 'Summed', token);
    const put = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${sub.id}/simulations`, { token, data: { kind: 'call', ...data } });
    expect((await put({ caller_id_number: '+14155550100', callee_id_number: '+18005550199', duration_seconds: 65, ringing_seconds: 5 })).status).toBe(201);
    expect((await put({ caller_id_number: '+14155550101', callee_id_number: '+18005550198', duration_seconds: 30, ringing_seconds: 10 })).status).toBe(201);
    const r = await srv.request('GET', `/v2/accounts/${sub.id}/cdrs/summary`, { token });
    expect(r.status, r.text).toBe(200);
    const [domain] = Object.keys(r.body.data.inbound);
    expect(r.body.data).toEqual({ inbound: { [domain]: { tollfree_us: { total: 80 } } }, outbound: {} });
    const now = nowGregorian();
    expect((await srv.request('GET', `/v2/accounts/${sub.id}/cdrs/summary?created_from=${now - 7200}&created_to=${now - 3600}`, { token })).body.data).toEqual({ inbound: {}, outbound: {} });
    expect((await srv.request('GET', `/v2/accounts/${sub.id}/cdrs/summary?created_from=${now - 40 * 86400}&created_to=${now}`, { token })).status).toBe(400);
  });
});
