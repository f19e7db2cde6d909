import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, openCore, type Core } from '../core.js';
import { claimRows } from '../delivery/claim.js';
import { enqueueDelivery } from '../delivery/outbox.js';
import { newSecret, signatureHeaders, verifySignature } from '../delivery/sign.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { createWebhook, rotateSecret } from '../modules/webhooks/service.js';
import { identify, judge } from './verify.js';

const OLD = newSecret();
const NEW = newSecret();
const body = '{"hook_event":"channel_create"}';

describe('signatures with several secrets', () => {
  it('each secret signs, space-separated, and the standardwebhooks package accepts either', () => {
    const headers = signatureHeaders([NEW, OLD], 'msg_1', body);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(new Webhook(NEW).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(OLD).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('verifySignature says which secret matched, or why none did', () => {
    const h = signatureHeaders([OLD], 'msg_2', body);
    const given = { id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'] };
    expect(verifySignature([NEW, OLD], given, body)).toEqual({ ok: true, secretIndex: 1 });
    expect(verifySignature([NEW], given, body)).toEqual({ ok: false, reason: 'no signature matches the secret' });
    expect(verifySignature([OLD], given, `${body} `)).toMatchObject({ ok: false });
    expect(verifySignature([OLD], given, body, Date.now() + 6 * 60_000)).toMatchObject({ ok: false, reason: /more than 300 s away/ });
    expect(verifySignature([OLD], { ...given, signature: 'v2,abc' }, body)).toMatchObject({ ok: false, reason: /no v1 signature/ });
  });
});

describe('the sink judges a request', () => {
  let core: Core;
  let account: string;
  let signed: string;
  let plain: string;

  beforeAll(() => {
    core = openCore(':memory:');
    account = initDatabase(core, { account: 'Lab', username: 'admin', password: 'secret-pass' }).account_id;
    const hook = (name: string, extra: Record<string, unknown>) =>
      createWebhook(core, account, { name, uri: 'http://127.0.0.1:9/x', hook: 'channel_create', ...extra }).id;
    signed = hook('Signed', { secret: OLD });
    plain = hook('Plain', {});
  });
  afterAll(() => closeCore(core));

  const request = (secrets: string[], id: string, extra: Record<string, string> = {}) => ({
    ...signatureHeaders(secrets, id, body),
    'x-event-id': id,
    ...extra,
  });

  it('unsigned without Standard Webhooks headers; invalid with half of them', () => {
    expect(judge(core, { 'x-hook-id': plain, 'x-event-id': 'e1' }, body)).toMatchObject({ verdict: 'unsigned', hookId: plain, eventId: 'e1' });
    expect(judge(core, { 'webhook-signature': 'v1,abc' }, body)).toMatchObject({ verdict: 'invalid', detail: /without webhook-id/ });
  });

  it("valid with the hook's secret (found by X-Hook-ID), invalid with another, unknown hook when the database has none", () => {
    const ok = judge(core, request([OLD], 'e2', { 'x-hook-id': signed }), body);
    expect(ok).toMatchObject({ verdict: 'valid', detail: "signed with the hook's secret", hookId: signed });
    expect(ok.hook?.accountId).toBe(account);
    expect(judge(core, request([NEW], 'e3', { 'x-hook-id': signed }), body)).toMatchObject({ verdict: 'invalid', detail: /no signature matches/ });
    expect(judge(core, request([OLD], 'e4', { 'x-hook-id': 'f'.repeat(32) }), body)).toMatchObject({ verdict: 'unknown hook' });
    expect(judge(core, request([OLD], 'e5'), body)).toMatchObject({ verdict: 'unknown hook', detail: /no X-Hook-ID/ });
    expect(judge(core, request([OLD], 'e6', { 'x-hook-id': plain }), body)).toMatchObject({ verdict: 'invalid', detail: /has no secret/ });
  });

  it('--secret decides alone, no hook needed', () => {
    expect(judge(core, request([NEW], 'e7'), body, { secret: NEW })).toMatchObject({ verdict: 'valid', detail: 'signed with the --secret given' });
    expect(judge(core, request([OLD], 'e8', { 'x-hook-id': signed }), body, { secret: NEW })).toMatchObject({ verdict: 'invalid' });
  });

  it('without X-Hook-ID the hook is the one of the delivery being sent with that webhook-id', () => {
    const id = enqueueDelivery(core, {
      kind: 'webhook',
      accountId: account,
      sourceId: signed,
      eventName: 'channel_create',
      url: 'http://127.0.0.1:9/x',
      method: 'post',
      payload: {},
      secret: OLD,
      eventId: 'e9',
    });
    // pending: not on its way yet, so not found
    expect(judge(core, request([OLD], 'e9'), body)).toMatchObject({ verdict: 'unknown hook' });
    expect(claimRows(core, { owner: 'test/1', leaseMs: 60_000 }, [id])).toHaveLength(1);
    const claim = identify(core, request([OLD], 'e9'));
    expect(claim).toEqual({ eventId: 'e9', hookId: signed });
    expect(judge(core, request([OLD], 'e9'), body)).toMatchObject({ verdict: 'valid', hookId: signed });
    // once the try is recorded the delivery is no longer being sent: the claim read at receipt still names the hook
    core.db.prepare("UPDATE outbox SET status = 'delivered' WHERE id = ?").run(id);
    expect(identify(core, request([OLD], 'e9')).hookId).toBeNull();
    expect(judge(core, request([OLD], 'e9'), body, { claim })).toMatchObject({ verdict: 'valid', hookId: signed });
  });

  it('hooks read for one request of a batch serve the others', () => {
    const hooks = new Map();
    judge(core, request([OLD], 'm1', { 'x-hook-id': signed }), body, { hooks });
    expect([...hooks.keys()]).toEqual([signed]);
    // a hook known to the batch is not read again (here: known as gone)
    hooks.set(signed, undefined);
    expect(judge(core, request([OLD], 'm2', { 'x-hook-id': signed }), body, { hooks })).toMatchObject({ verdict: 'unknown hook' });
  });

  it('after a rotation both secrets are valid during the grace, only the new one after it', () => {
    const hook = createWebhook(core, account, { name: 'Rotated', uri: 'http://127.0.0.1:9/r', hook: 'channel_create', secret: OLD });
    rotateSecret(core, hook.id, { secret: NEW, graceMs: 60_000 });
    const now = Date.now();
    expect(judge(core, request([NEW], 'r1', { 'x-hook-id': hook.id }), body, { nowMs: now })).toMatchObject({ verdict: 'valid', detail: "signed with the hook's secret" });
    expect(judge(core, request([OLD], 'r2', { 'x-hook-id': hook.id }), body, { nowMs: now })).toMatchObject({
      verdict: 'valid',
      detail: /previous secret \(it signs until/,
    });
    const later = now + 61_000;
    const old = { ...signatureHeaders([OLD], 'r3', body, later), 'x-hook-id': hook.id };
    expect(judge(core, old, body, { nowMs: later })).toMatchObject({ verdict: 'invalid' });
  });
});
