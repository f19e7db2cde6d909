import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

// Voicemail messages as Kazoo's cb_vmboxes serves them (validate_messages/3, validate_message/4,
// post/3, post/4, delete/3, delete/4), over the messages simulated voicemail leaves. Rows are those
// of the mailbox_messages/listing_by_mailbox view; bulk changes answer kvm_messages' bulk_result/1
// (`failed` is an object by id: the docs show a list, the source wins).

describe('voicemail messages', () => {
  let srv: TestServer;
  let base: string;
  let realm: string;
  let token: string;
  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Voicemail Co');
    base = `/v2/accounts/${sub.id}`;
    token = srv.adminToken;
    realm = (await srv.request('GET', base, { token })).body.data.realm;
  });
  afterAll(async () => srv.close());

  let mailbox = 4000;
  async function box(): Promise<string> {
    const r = await srv.request('PUT', `${base}/vmboxes`, { token, data: { name: `Box ${mailbox}`, mailbox: String(mailbox++) } });
    return r.body.data.id;
  }
  async function leave(boxId: string, caller = '+14155550100'): Promise<string> {
    const r = await srv.request('PUT', `${base}/simulations`, { token, data: { kind: 'voicemail', vmbox_id: boxId, caller_id_number: caller, caller_id_name: 'Alice', length: 3 } });
    expect(r.status).toBe(201);
    return r.body.data.events.find((e: { event: string }) => e.event === 'new_unowned_voicemail').voicemail_id;
  }
  const messages = async (boxId: string, query = '') => srv.request('GET', `${base}/vmboxes/${boxId}/messages${query}`, { token });

  it('a simulated message is listed with the fields of listing_by_mailbox, newest first, paged', async () => {
    const b = await box();
    const first = await leave(b, '+14155550101');
    const second = await leave(b, '+14155550102');
    const list = await messages(b);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { media_id: string }) => m.media_id).sort()).toEqual([first, second].sort());
    const row = list.body.data.find((m: { media_id: string }) => m.media_id === first);
    expect(row).toEqual({
      timestamp: expect.any(Number),
      from: `+14155550101@${realm}`,
      to: `${mailbox - 1}@${realm}`,
      caller_id_number: '+14155550101',
      caller_id_name: 'Alice',
      call_id: expect.any(String),
      folder: 'new',
      length: 3000,
      media_id: first,
    });
    expect(first).toMatch(/^\d{6}-[0-9a-f]{32}$/);
    const page = await messages(b, '?page_size=1');
    expect(page.body.data).toHaveLength(1);
    const next = await messages(b, `?page_size=1&start_key=${page.body.next_start_key}`);
    expect([page.body.data[0].media_id, next.body.data[0].media_id].sort()).toEqual([first, second].sort());
  });

  it('a message is fetched, moved between folders, and deleted for good', async () => {
    const b = await box();
    const id = await leave(b);
    const got = await srv.request('GET', `${base}/vmboxes/${b}/messages/${id}`, { token });
    expect(got.body.data).toMatchObject({ media_id: id, folder: 'new', from_user: '+14155550100', from_realm: realm, to_user: String(mailbox - 1), to_realm: realm });
    const saved = await srv.request('POST', `${base}/vmboxes/${b}/messages/${id}`, { token, data: { folder: 'saved' } });
    expect(saved.body.data).toMatchObject({ media_id: id, folder: 'saved' });
    // the folder from the query string, and none named: Kazoo saves it (get_folder_filter/2's default)
    await srv.request('POST', `${base}/vmboxes/${b}/messages/${id}?folder=new`, { token });
    expect((await messages(b)).body.data[0].folder).toBe('new');
    await srv.request('POST', `${base}/vmboxes/${b}/messages/${id}`, { token, data: {} });
    expect((await messages(b)).body.data[0].folder).toBe('saved');
    const other = await box();
    expect((await srv.request('GET', `${base}/vmboxes/${other}/messages/${id}`, { token })).status).toBe(404);
    const deleted = await srv.request('DELETE', `${base}/vmboxes/${b}/messages/${id}`, { token });
    expect(deleted.body.data).toMatchObject({ media_id: id, folder: 'deleted' });
    expect((await srv.request('GET', `${base}/vmboxes/${b}/messages/${id}`, { token })).status).toBe(404);
    expect((await messages(b)).body.data).toEqual([]);
  });

  it('bulk: change the folder of the messages named, move them to a box, copy them to boxes', async () => {
    const b = await box();
    const [m1, m2] = [await leave(b), await leave(b)];
    const ghost = '202001-' + 'a'.repeat(32);
    const changed = await srv.request('POST', `${base}/vmboxes/${b}/messages`, { token, data: { folder: 'saved', messages: [m1, ghost] } });
    expect(changed.body.data).toEqual({ succeeded: [m1], failed: { [ghost]: 'not_found' } });
    const none = await srv.request('POST', `${base}/vmboxes/${b}/messages`, { token, data: { folder: 'saved' } });
    expect(none.status).toBe(400);
    expect(none.body.data.messages.required).toBeTruthy();

    const to = await box();
    const moved = await srv.request('POST', `${base}/vmboxes/${b}/messages`, { token, data: { source_id: to, messages: [m2] } });
    expect(moved.body.data.succeeded).toHaveLength(1);
    const [newId] = moved.body.data.succeeded;
    expect(newId).not.toBe(m2);
    expect((await messages(b)).body.data.map((m: { media_id: string }) => m.media_id)).toEqual([m1]);
    expect((await messages(to)).body.data).toEqual([expect.objectContaining({ media_id: newId, folder: 'new', to: `${mailbox - 1}@${realm}` })]);

    const c1 = await box();
    const c2 = await box();
    const copied = await srv.request('POST', `${base}/vmboxes/${b}/messages/${m1}`, { token, data: { source_id: [c1, c2] } });
    expect(copied.body.data.succeeded).toHaveLength(2);
    expect((await messages(b)).body.data).toHaveLength(1);
    expect((await messages(c1)).body.data).toHaveLength(1);
    expect((await messages(c2)).body.data).toHaveLength(1);
  });

  it('bulk delete: the messages named, else those of a folder, else all', async () => {
    const b = await box();
    const [m1, m2, m3] = [await leave(b), await leave(b), await leave(b)];
    await srv.request('POST', `${base}/vmboxes/${b}/messages/${m1}`, { token, data: { folder: 'saved' } });
    const bySaved = await srv.request('DELETE', `${base}/vmboxes/${b}/messages?folder=saved`, { token });
    expect(bySaved.body.data).toEqual({ succeeded: [m1] });
    const named = await srv.request('DELETE', `${base}/vmboxes/${b}/messages`, { token, data: { messages: [m2] } });
    expect(named.body.data).toEqual({ succeeded: [m2] });
    const all = await srv.request('DELETE', `${base}/vmboxes/${b}/messages`, { token });
    expect(all.body.data).toEqual({ succeeded: [m3] });
    expect((await messages(b)).body.data).toEqual([]);
  });

  it("a message created through the API takes Kazoo's defaults; the account's messages are listed by box", async () => {
    const b = await box();
    const created = await srv.request('PUT', `${base}/vmboxes/${b}/messages`, { token, data: { caller_id_name: 'someone', folder: 'saved', from: 'someone' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ caller_id_name: 'someone', caller_id_number: '0000000000', from: `someone@${realm}`, folder: 'saved', length: 1 });
    const refused = await srv.request('PUT', `${base}/vmboxes/${b}/messages`, { token, data: { folder: 'archived' } });
    expect(refused.status).toBe(400);
    const all = await srv.request('GET', `${base}/vmboxes/messages`, { token });
    expect(all.body.data).toContainEqual({ [b]: expect.objectContaining({ media_id: created.body.data.media_id }) });
  });

  it("a deleted box's messages go to the deleted folder (cb_vmboxes delete/2)", async () => {
    const b = await box();
    const id = await leave(b);
    await srv.request('DELETE', `${base}/vmboxes/${b}`, { token });
    const all = await srv.request('GET', `${base}/vmboxes/messages`, { token });
    expect(all.body.data).toContainEqual({ [b]: expect.objectContaining({ media_id: id, folder: 'deleted' }) });
  });

  it('a full box takes no message: voicemail_full is notified instead (cf_voicemail handle_full_mailbox/2)', async () => {
    const b = await box();
    for (let i = 0; i < 100; i++) await srv.request('PUT', `${base}/vmboxes/${b}/messages`, { token, data: {} });
    const r = await srv.request('PUT', `${base}/simulations`, { token, data: { kind: 'voicemail', vmbox_id: b } });
    expect(r.body.data.events).toEqual([expect.objectContaining({ event: 'notifications', event_name: 'voicemail_full', voicemail_box: b, message_count: 100, max_message_count: 100 })]);
    expect((await messages(b, '?paginate=false')).body.data).toHaveLength(100);
  });
});
