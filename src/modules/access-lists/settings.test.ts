import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/**
 * The modules whose documents are settings of an account or of one of its devices: access lists,
 * metaflows, comments, rate limits, allotments, storage.
 */
describe("an account's settings kept by Kazoo's modules", () => {
  let srv: TestServer;
  let reseller: { id: string; apiKey: string };
  let customer: { id: string; apiKey: string };
  let resellerToken: string;
  let token: string;
  let clerk: string;
  let device: string;
  const at = (path: string) => `/v2/accounts/${customer.id}/${path}`;

  beforeAll(async () => {
    srv = await startTestServer();
    reseller = await createSubAccount(srv, srv.master.account_id, 'Settings Reseller');
    await srv.request('PUT', `/v2/accounts/${reseller.id}/reseller`, { token: srv.adminToken });
    customer = await createSubAccount(srv, reseller.id, 'Settings Customer');
    resellerToken = await srv.apiLogin(reseller.apiKey);
    token = await srv.apiLogin(customer.apiKey);
    await srv.request('PUT', at('users'), { token, data: { username: 'clerk', password: 'clerk-pass', first_name: 'C', last_name: 'Lerk', priv_level: 'user' } });
    clerk = await srv.userLogin('Settings Customer', 'clerk', 'clerk-pass');
    device = (await srv.request('PUT', at('devices'), { token, data: { name: 'Desk phone', sip: { username: 'desk' } } })).body.data.id;
  });
  afterAll(() => srv?.close());

  it("access lists live on the account's and the device's documents; an admin sets them", async () => {
    const acl = { order: 'allow,deny', cidrs: ['10.0.0.0/8'], user_agent: 'Yealink' };
    expect((await srv.request('GET', at('access_lists'), { token })).body.data).toEqual({});
    expect((await srv.request('POST', at('access_lists'), { token, data: { cidrs: [] } })).body.data.order.required).toBeDefined();
    expect((await srv.request('POST', at('access_lists'), { token: clerk, data: acl })).status).toBe(403);
    expect((await srv.request('POST', at('access_lists'), { token, data: acl })).body.data).toEqual(acl);
    expect((await srv.request('GET', `/v2/accounts/${customer.id}`, { token })).body.data.access_lists).toEqual(acl);
    const onDevice = await srv.request('POST', at(`devices/${device}/access_lists`), { token, data: { ...acl, order: 'deny,allow' } });
    expect(onDevice.body.data.order).toBe('deny,allow');
    expect((await srv.request('GET', at(`devices/${device}`), { token })).body.data.access_lists.order).toBe('deny,allow');
    expect((await srv.request('DELETE', at('access_lists'), { token })).body.data).toEqual({});
    expect((await srv.request('GET', `/v2/accounts/${customer.id}`, { token })).body.data.access_lists).toBeUndefined();
    expect((await srv.request('GET', at(`devices/${'0'.repeat(32)}/access_lists`), { token })).status).toBe(404);
  });

  it("metaflows live on the account's document, checked by Kazoo's schema", async () => {
    expect((await srv.request('GET', at('metaflows'), { token })).body.data).toEqual({});
    const set = await srv.request('POST', at('metaflows'), { token: clerk, data: { numbers: { '2': { module: 'hold' } } } });
    expect(set.status, set.text).toBe(200);
    // the action's data gets its module's defaults too
    expect(set.body.data).toEqual({ binding_digit: '*', numbers: { '2': { module: 'hold', data: { unhold_key: '1' } } } });
    expect((await srv.request('POST', at('metaflows'), { token, data: { binding_digit: 'x' } })).body.data.binding_digit.enum).toBeDefined();
    expect((await srv.request('POST', at('metaflows'), { token, data: { numbers: { '3': { module: 'no_such' } } } })).status).toBe(400);
    expect((await srv.request('GET', `/v2/accounts/${customer.id}`, { token })).body.data.metaflows.binding_digit).toBe('*');
    expect((await srv.request('DELETE', at('metaflows'), { token })).body.data).toEqual({});
    expect((await srv.request('GET', at('metaflows'), { token })).body.data).toEqual({});
  });

  it('comments are kept on the account in time order, each reached by its position', async () => {
    const c = (content: string, timestamp: number) => ({ author: 'Ann', content, timestamp });
    const added = await srv.request('PUT', at('comments'), { token, data: { comments: [c('second', 200), c('first', 100)] } });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data.comments.map((x: { content: string }) => x.content)).toEqual(['first', 'second']);
    expect(added.body.data.comments[0]).toMatchObject({ action_required: false, is_private: false });
    expect((await srv.request('PUT', at('comments'), { token, data: { comments: [{ author: 'Bob' }] } })).body.data['comments.0.content'].required).toBeDefined();
    expect((await srv.request('GET', at('comments/1'), { token })).body.data.content).toBe('second');
    expect((await srv.request('GET', at('comments/2'), { token })).status).toBe(404);
    // replaced, the list is put in order again: the comment answered is the one now at that position
    const replaced = await srv.request('POST', at('comments/1'), { token, data: c('earliest', 50) });
    expect(replaced.body.data.content).toBe('first');
    expect((await srv.request('GET', at('comments'), { token })).body.data.comments.map((x: { content: string }) => x.content)).toEqual(['earliest', 'first']);
    expect((await srv.request('DELETE', at('comments/0'), { token })).body.data.comments.map((x: { content: string }) => x.content)).toEqual(['first']);
    expect((await srv.request('DELETE', at('comments'), { token })).body.data).toEqual({ comments: [] });
  });

  it("rate limits: the account's (its realm's and its devices' default) and a device's, each by its schema; an admin sets them", async () => {
    const limits = { per_minute: { total_packets: 100, invites: 20 }, per_second: { total_packets: 5 } };
    expect((await srv.request('GET', at('rate_limits'), { token })).body.data).toEqual({});
    expect((await srv.request('POST', at('rate_limits'), { token, data: limits })).body.data.account.required).toBeDefined();
    expect((await srv.request('POST', at('rate_limits'), { token: clerk, data: { account: limits, device: limits } })).status).toBe(403);
    const set = await srv.request('POST', at('rate_limits'), { token, data: { account: limits, device: limits } });
    expect(set.body.data).toMatchObject({ account: limits, device: limits, id: expect.any(String) });
    const again = await srv.request('POST', at('rate_limits'), { token, data: { account: limits, device: { ...limits, per_second: { total_packets: 9 } } } });
    expect(again.body.data.id).toBe(set.body.data.id);
    const onDevice = await srv.request('POST', at(`devices/${device}/rate_limits`), { token, data: { ...limits, per_hour: 'kept' } });
    expect(onDevice.body.data).toMatchObject({ ...limits, per_hour: 'kept' });
    expect(onDevice.body.data.id).not.toBe(set.body.data.id);
    expect((await srv.request('POST', at(`devices/${device}/rate_limits`), { token, data: { per_minute: { total_packets: 1, floods: 3 }, per_second: { total_packets: 1 } } })).status).toBe(400);
    expect((await srv.request('GET', at('rate_limits'), { token })).body.data.device.per_second.total_packets).toBe(9);
    expect((await srv.request('DELETE', at(`devices/${device}/rate_limits`), { token })).body.data._read_only).toEqual({ deleted: true });
    expect((await srv.request('GET', at(`devices/${device}/rate_limits`), { token })).body.data).toEqual({});
    expect((await srv.request('GET', at('rate_limits'), { token })).body.data.account).toEqual(limits);
  });

  it("allotments: set by the account's reseller (not by the account), answered back; none set is Kazoo's 400", async () => {
    const allotments = { outbound_national: { amount: 600, cycle: 'monthly', increment: 60 } };
    const none = await srv.request('GET', at('allotments'), { token });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('allotments are not configured for this account yet');
    const refused = await srv.request('POST', at('allotments'), { token, data: allotments });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('sub-accounts of non-master resellers must contact the reseller to change their allotments');
    expect((await srv.request('POST', at('allotments'), { token: resellerToken, data: { local: { amount: -1, cycle: 'daily' } } })).body.data['local.amount'].minimum).toBeDefined();
    expect((await srv.request('POST', at('allotments'), { token: resellerToken, data: allotments })).body.data).toEqual(allotments);
    expect((await srv.request('GET', at('allotments'), { token })).body.data).toEqual(allotments);
  });

  it("storage: an account's settings (its admins' alone: they hold credentials) and a reseller's plans, checked by Kazoo's schemas", async () => {
    const s3 = { attachments: { ['a'.repeat(32)]: { handler: 's3', name: 'S3', settings: { bucket: 'recordings', key: 'AKIA', secret: 'shh' } } } };
    expect((await srv.request('GET', at('storage'), { token })).status).toBe(404);
    expect((await srv.request('PUT', at('storage'), { token: clerk, data: s3 })).status).toBe(403);
    const bad = await srv.request('PUT', at('storage'), { token, data: { attachments: { ['b'.repeat(32)]: { handler: 's3', settings: { bucket: 'x' } } } } });
    expect(bad.status).toBe(400);
    const made = await srv.request('PUT', at('storage'), { token, data: s3 });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.id).toBe(customer.id);
    expect((await srv.request('PUT', at('storage'), { token, data: s3 })).status).toBe(409);
    expect((await srv.request('GET', at('storage'), { token: clerk })).status).toBe(403);
    expect((await srv.request('PATCH', at('storage'), { token, data: { plan: { modb: { types: { call_recording: { attachments: { handler: 'a'.repeat(32) } } } } } } })).status).toBe(200);
    expect((await srv.request('GET', at('storage'), { token })).body.data).toMatchObject({ ...s3, plan: { modb: {} } });
    expect((await srv.request('DELETE', at('storage'), { token })).body.data._read_only).toEqual({ deleted: true });
    // plans belong to resellers
    const plans = `/v2/accounts/${reseller.id}/storage/plans`;
    expect((await srv.request('GET', at('storage/plans'), { token })).status).toBe(403);
    const plan = await srv.request('PUT', plans, { token: resellerToken, data: s3 });
    expect(plan.status, plan.text).toBe(201);
    expect((await srv.request('GET', plans, { token: resellerToken })).body.data).toEqual([{ ...plan.body.data }]);
    expect((await srv.request('POST', `${plans}/${plan.body.data.id}`, { token: resellerToken, data: {} })).body.data).toEqual({ id: plan.body.data.id });
    expect((await srv.request('DELETE', `${plans}/${plan.body.data.id}`, { token: resellerToken })).status).toBe(200);
    expect((await srv.request('GET', `${plans}/${plan.body.data.id}`, { token: resellerToken })).status).toBe(404);
  });
});
