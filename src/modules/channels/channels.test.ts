import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';

describe('channels: calls kept up, their actions, and what they leave when they end', () => {
  let srv: TestServer;
  let sink: Sink;
  let account: string;
  let token: string;
  let user: string;
  let device: string;
  const base = () => `/v2/accounts/${account}`;
  const get = (path: string) => srv.request('GET', `${base()}${path}`, { token });

  async function simulate(data: Record<string, unknown>) {
    const r = await srv.request('PUT', `${base()}/simulations`, { token, data });
    return { status: r.status, events: (r.body.data?.events ?? []) as Record<string, any>[], body: r.body };
  }
  /** A bridged call kept up: answers its two legs' ids. */
  async function upCall(extra: Record<string, unknown> = {}): Promise<{ a: string; b: string }> {
    const { status, events } = await simulate({ kind: 'call', hangup: false, device_id: device, callee_id_number: '+14155550123', ...extra });
    expect(status).toBe(201);
    expect(events.map((e) => e.event)).toEqual(['channel_create', 'channel_answer', 'channel_bridge']);
    return { a: events[0].call_id, b: events[2].other_leg_call_id };
  }
  const legsOf = async (a: string) => (await get(`/cdrs/legs/${(await get('/cdrs')).body.data.find((r: any) => r.call_id === a).interaction_id}?ascending=true`)).body.data;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Live Calls');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
    user = (await srv.request('PUT', `${base()}/users`, { token, data: { username: 'bo', first_name: 'Bo', last_name: 'Ek' } })).body.data.id;
    device = (await srv.request('PUT', `${base()}/devices`, { token, data: { name: 'phone', owner_id: user, sip: { username: 'bo-phone', password: 'pw-12345' } } })).body.data.id;
    const hook = await srv.request('PUT', `${base()}/webhooks`, { token, data: { name: 'ends', uri: `${sink.url}/destroy`, hook: 'channel_destroy', http_verb: 'post', format: 'json' } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('a call kept up is two channels of the account, of its user and of its device, and leaves no CDR yet', async () => {
    const { a, b } = await upCall();
    const list = await get('/channels');
    expect(list.status).toBe(200);
    const mine = list.body.data.filter((c: any) => c.uuid === a || c.uuid === b);
    expect(mine).toHaveLength(2);
    expect(mine.find((c: any) => c.uuid === a)).toMatchObject({ answered: true, direction: 'inbound', other_leg: b, destination: '+14155550123', owner_id: user, authorizing_id: device, username: 'bo-phone', presence_id: expect.stringMatching(/^bo-phone@/) });
    // a call of no device nor user is the account's only
    const other = await upCall({ device_id: undefined });
    expect((await get('/channels')).body.data.map((c: any) => c.uuid)).toContain(other.a);
    for (const path of [`/users/${user}/channels`, `/devices/${device}/channels`]) {
      const uuids = (await get(path)).body.data.map((c: any) => c.uuid);
      expect(uuids).toEqual(expect.arrayContaining([a, b]));
      expect(uuids).not.toContain(other.a);
    }
    for (const path of [`/users/${'f'.repeat(32)}/channels`, `/devices/${'f'.repeat(32)}/channels`]) expect((await get(path)).status).toBe(404);
    await simulate({ kind: 'hangup', call_id: other.a });
    const one = await get(`/channels/${a}`);
    expect(one.body.data).toMatchObject({ call_id: a, call_direction: 'inbound', other_leg_call_id: b, caller_id_number: '+14155550100' });
    expect((await get('/cdrs')).body.data.filter((r: any) => r.call_id === a)).toEqual([]);
    await simulate({ kind: 'hangup', call_id: a });
  });

  it('the hangup action ends the call: no channel left, channel_destroy delivered, both legs have their CDR', async () => {
    const { a, b } = await upCall();
    const r = await srv.request('POST', `${base()}/channels/${b}`, { token, data: { action: 'hangup' } });
    expect(r.status).toBe(202);
    expect(r.body.data).toBe('hangup initiated');
    expect((await get(`/channels/${a}`)).status).toBe(404);
    const [delivered] = await sink.waitFor(1, { filter: (q) => JSON.parse(q.body).call_id === a });
    expect(JSON.parse(delivered.body)).toMatchObject({ hook_event: 'channel_destroy', hangup_cause: 'NORMAL_CLEARING', other_leg_call_id: b });
    expect((await legsOf(a)).map((c: any) => c.call_id)).toEqual([a, b]);
  });

  it('a transfer connects the peer to the target and hangs up the transferor; hanging up later ends the rest', async () => {
    const { a, b } = await upCall();
    const r = await srv.request('POST', `${base()}/channels/${a}`, { token, data: { action: 'transfer', target: '2002' } });
    expect(r.status).toBe(202);
    expect(r.body.data).toBe('transfer initiated');
    const legs = (await get('/channels')).body.data;
    expect(legs.map((c: any) => c.uuid)).not.toContain(a);
    const target = legs.find((c: any) => c.destination === '2002');
    expect(target).toMatchObject({ answered: true, other_leg: b });
    expect(legs.find((c: any) => c.uuid === b).other_leg).toBe(target.uuid);
    expect((await legsOf(a)).map((c: any) => c.call_id)).toEqual([a]);
    const end = await simulate({ kind: 'hangup', call_id: target.uuid, hangup_cause: 'ORIGINATOR_CANCEL' });
    expect(end.events.map((e) => [e.event, e.call_id, e.hangup_cause])).toEqual([['channel_destroy', target.uuid, 'ORIGINATOR_CANCEL']]);
    expect((await get('/channels')).body.data).toEqual([]);
    const cdrs = await legsOf(a);
    expect(cdrs.map((c: any) => c.call_id)).toEqual([a, b, target.uuid]);
    expect(cdrs[2]).toMatchObject({ callee_id_number: '2002', hangup_cause: 'ORIGINATOR_CANCEL', other_leg_call_id: b });
  });

  it('actions are refused as Kazoo refuses them; metaflows hangup and transfer run, others are refused', async () => {
    const lone = await simulate({ kind: 'call', hangup: false, bridge: false });
    const uuid = lone.events[0].call_id;
    const notBridged = await srv.request('POST', `${base()}/channels/${uuid}`, { token, data: { action: 'transfer', target: '1000' } });
    expect(notBridged.status).toBe(400);
    expect(notBridged.body.data.other_leg_call_id.required.message).toBe('Channel is not bridged');
    const { a } = await upCall();
    const noTarget = await srv.request('POST', `${base()}/channels/${a}`, { token, data: { action: 'transfer' } });
    expect(noTarget.body.data.target.required.message).toBe('No target destination specified');
    expect((await srv.request('POST', `${base()}/channels/${a}`, { token, data: { action: 'break' } })).status).toBe(400);
    expect((await srv.request('POST', `${base()}/channels/nobody`, { token, data: { action: 'hangup' } })).status).toBe(404);
    const hold = await srv.request('PUT', `${base()}/channels/${a}`, { token, envelope: { action: 'metaflow' }, data: { module: 'hold' } });
    expect(hold.status).toBe(400);
    const flow = await srv.request('PUT', `${base()}/channels/${a}`, { token, envelope: { action: 'metaflow' }, data: { module: 'hangup' } });
    expect(flow.status).toBe(202);
    expect(flow.body.data).toBe('metaflow sent');
    expect((await get(`/channels/${a}`)).status).toBe(404);
    const taken = await simulate({ kind: 'call', hangup: false, call_id: uuid });
    expect(taken.status).toBe(400);
    expect((await simulate({ kind: 'hangup', call_id: 'gone' })).status).toBe(404);
    await simulate({ kind: 'hangup', call_id: uuid });
  });
});
