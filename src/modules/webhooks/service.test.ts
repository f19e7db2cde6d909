import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/server.js';
import { closeCore, openCore } from '../../core.js';
import type { Core } from '../../core-type.js';
import { ApiError } from '../../errors.js';
import { recordAttempt } from '../../delivery/attempts.js';
import { enqueueDelivery, findDelivery } from '../../delivery/outbox.js';
import { newSecret } from '../../delivery/sign.js';
import { transaction } from '../../store/db.js';
import { countFailure } from './disabler.js';
import {
  createWebhook,
  deleteWebhook,
  getAttempt,
  hookView,
  maskedUri,
  MASKED,
  reenableAutoDisabled,
  replayDeliveries,
  resendAttempt,
  rotateSecret,
  updateWebhook,
} from './service.js';
import { autoDisableHook, findHook } from './store.js';
import { WEBHOOK_KIND } from './match.js';

/** What a call threw: its status and data, as the API would answer them. */
function refusal(fn: () => unknown): { status: number; data: any } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, data: err.data };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('the webhooks service on a database file', () => {
  const tmp = tempDir('tel-hooks-service-');
  let core: Core;
  const account = 'a'.repeat(32);
  const other = 'b'.repeat(32);
  let n = 0;
  const make = (data: Record<string, unknown> = {}, accountId = account) =>
    createWebhook(core, accountId, { name: `hook ${++n}`, uri: `http://127.0.0.1:9/h${n}`, hook: 'channel_create', format: 'json', ...data });
  const failuresOf = (id: string) => (core.db.prepare('SELECT count(*) AS n FROM webhook_failures WHERE hook_id = ?').get(id) as { n: number }).n;

  /** A delivery of the hook and the attempt record of its one failed try; answers both ids. */
  function triedOnce(hookId: string, over: { retries?: number; accountId?: string; kind?: string } = {}): { delivery: number; attempt: number } {
    return transaction(core.db, () => {
      const h = findHook(core, over.accountId ?? account, hookId)!;
      const delivery = enqueueDelivery(core, {
        kind: over.kind ?? WEBHOOK_KIND,
        accountId: h.accountId,
        sourceId: h.id,
        sourceName: String(h.doc.name),
        eventName: 'channel_create',
        url: String(h.doc.uri),
        method: 'post',
        format: 'json',
        payload: { hook_event: 'channel_create', call_id: `c${++n}` },
        retries: over.retries ?? 0,
        headers: { 'X-Hook-ID': h.id },
      });
      const row = findDelivery(core, delivery)!;
      core.db.prepare("UPDATE outbox SET status = 'failed' WHERE id = ?").run(delivery);
      const attempt = recordAttempt(core, row, { ok: false, url: row.url, status: 500, reason: 'bad response code', latencyMs: 3, reqHeaders: {}, reqBody: row.payload }, 1, 0, Date.now());
      return { delivery, attempt };
    });
  }

  beforeAll(() => {
    core = openCore(join(tmp.dir, 'hooks.db'));
    core.config.set('webhooks', { default: { attempt_failure_count: 2, attempt_failure_expiry_ms: 60_000, secret_rotation_grace_s: 3600 } });
  });
  afterAll(() => {
    closeCore(core);
    tmp.cleanup();
  });

  describe('what a caller who is no admin of the account sees', () => {
    it('a uri with credentials reads masked; a uri whose query carries another address with credentials is left as it is', () => {
      expect(maskedUri('https://crm:hunter2@crm.example.com/hook')).toBe(`https://${MASKED}@crm.example.com/hook`);
      expect(maskedUri('https://crm.example.com/go?next=http://u:p@inner.example/x')).toBe('https://crm.example.com/go?next=http://u:p@inner.example/x');
      expect(maskedUri(undefined)).toBeUndefined();
    });

    it('a hook without a secret shows none; the uri the caller has just sent is shown as sent', () => {
      const json = { id: 'x', name: 'CRM', uri: 'https://crm:hunter2@crm.example.com/hook' };
      expect(hookView(json, false)).toEqual({ id: 'x', name: 'CRM', uri: `https://${MASKED}@crm.example.com/hook` });
      expect(hookView(json, false)).not.toHaveProperty('secret');
      expect(hookView(json, false, { uri: json.uri })).toEqual(json);
    });
  });

  describe('editing a hook', () => {
    it('a new uri given whole is kept, not taken for the mask of the old one', () => {
      const h = make({ uri: 'https://crm:hunter2@crm.example.com/hook' });
      updateWebhook(core, account, h.id, { uri: 'https://crm.example.com/other' }, 'merge');
      expect(findHook(core, account, h.id)!.doc.uri).toBe('https://crm.example.com/other');
      // the mask of the current uri, posted back, means "unchanged"
      const g = make({ uri: 'https://crm:hunter2@crm.example.com/hook' });
      updateWebhook(core, account, g.id, { uri: `https://${MASKED}@crm.example.com/hook` }, 'merge');
      expect(findHook(core, account, g.id)!.doc.uri).toBe('https://crm:hunter2@crm.example.com/hook');
    });

    it('the mask posted as the secret of a hook that has none is refused as a secret, never stored', () => {
      const h = make();
      const r = refusal(() => updateWebhook(core, account, h.id, { secret: MASKED }, 'merge'));
      expect(r.status).toBe(400);
      expect(r.data.secret.invalid).toBeDefined();
      expect(findHook(core, account, h.id)!.doc).not.toHaveProperty('secret');
    });

    it('editing an auto-disabled hook that stays off keeps its disable_reason; turning it on clears it', () => {
      const h = make();
      expect(autoDisableHook(core, h.id, 'too many failed deliveries')).toBe(true);
      const renamed = updateWebhook(core, account, h.id, { name: 'renamed' }, 'merge');
      expect(renamed.disableReason).toBe('too many failed deliveries');
      expect(findHook(core, account, h.id)!.disableReason).toBe('too many failed deliveries');
      expect(updateWebhook(core, account, h.id, { enabled: true }, 'merge').disableReason).toBeNull();
    });

    it('any edit starts the failure count again: one failure before and one after leave the hook on', () => {
      const h = make();
      countFailure(core, account, h.id, '500 bad response code');
      expect(failuresOf(h.id)).toBe(1);
      updateWebhook(core, account, h.id, { name: 'edited' }, 'merge');
      expect(failuresOf(h.id)).toBe(0);
      countFailure(core, account, h.id, '500 bad response code');
      expect(findHook(core, account, h.id)!.doc.enabled).toBe(true);
    });

    it('an edit during a rotation leaves the old secret signing until the end of its grace', () => {
      const [a, b] = [newSecret(), newSecret()];
      const h = make({ secret: a });
      const rotated = rotateSecret(core, h.id, { accountId: account, secret: b, graceMs: 60_000 });
      expect(rotated.previousSecret?.secret).toBe(a);
      const until = rotated.previousSecret!.until;
      expect(until - Date.now()).toBeGreaterThan(55_000);
      const edited = updateWebhook(core, account, h.id, { name: 'edited' }, 'merge');
      expect(edited.doc.secret).toBe(b);
      expect(findHook(core, account, h.id)!.previousSecret).toEqual({ secret: a, until });
    });

    it('a secret set for the first time, cleared, or replaced without grace leaves nothing signing beside it', () => {
      const h = make();
      const s = newSecret();
      expect(updateWebhook(core, account, h.id, { secret: s }, 'merge').previousSecret).toBeNull();
      const g = make({ secret: s });
      const { secret: _s, ...rest } = findHook(core, account, g.id)!.doc;
      const cleared = updateWebhook(core, account, g.id, rest, 'replace');
      expect(cleared.doc).not.toHaveProperty('secret');
      expect(cleared.previousSecret).toBeNull();
      expect(findHook(core, account, g.id)!.previousSecret).toBeNull();
      const k = make({ secret: s });
      expect(rotateSecret(core, k.id, { graceMs: 0 }).previousSecret).toBeNull();
      expect(findHook(core, account, k.id)!.previousSecret).toBeNull();
    });

    it('rotating a secret is refused for a hook of another account, done for its own', () => {
      const h = make({ secret: newSecret() });
      expect(refusal(() => rotateSecret(core, h.id, { accountId: other })).status).toBe(404);
      const rotated = rotateSecret(core, h.id, { accountId: account });
      expect(rotated.doc.secret).not.toBe(h.doc.secret);
      expect(rotated.previousSecret?.secret).toBe(h.doc.secret);
    });
  });

  describe('deleting and re-enabling', () => {
    it('a deleted hook takes its failure count and its waiting deliveries with it: one made again under its id starts afresh', () => {
      const h = make();
      countFailure(core, account, h.id, '500 bad response code');
      const waiting = transaction(core.db, () =>
        enqueueDelivery(core, { kind: WEBHOOK_KIND, accountId: account, sourceId: h.id, eventName: 'channel_create', url: String(h.doc.uri), method: 'post', payload: { x: 1 }, dueAt: Date.now() + 60_000 }),
      );
      transaction(core.db, () => deleteWebhook(core, account, h.id));
      expect(findDelivery(core, waiting)!.status).toBe('cancelled');
      expect(failuresOf(h.id)).toBe(0);
      createWebhook(core, account, { name: 'again', uri: String(h.doc.uri), hook: 'channel_create' }, h.id);
      countFailure(core, account, h.id, '500 bad response code');
      expect(findHook(core, account, h.id)!.doc.enabled).toBe(true);
    });

    it('a bulk re-enable starts each hook\'s failure count again', () => {
      const h = make();
      countFailure(core, account, h.id, '500 bad response code');
      countFailure(core, account, h.id, '500 bad response code');
      expect(findHook(core, account, h.id)!.disableReason).toMatch(/^too many failed deliveries: 2 within 60000 ms/);
      // failures counted after the disabler's own reset, as a delivery in flight ends
      countFailure(core, account, h.id, '500 bad response code');
      expect(reenableAutoDisabled(core, account, false)).toBe(1);
      expect(failuresOf(h.id)).toBe(0);
      countFailure(core, account, h.id, '500 bad response code');
      expect(findHook(core, account, h.id)!.doc.enabled).toBe(true);
    });
  });

  describe('attempts and resending them', () => {
    it('an attempt is found by its id, under its own account only; an unknown id or another kind\'s attempt is a 404', () => {
      const h = make();
      const { attempt } = triedOnce(h.id);
      expect(getAttempt(core, attempt).id).toBe(attempt);
      expect(getAttempt(core, attempt, account)).toMatchObject({ id: attempt, source_id: h.id, http_status: 500 });
      expect(refusal(() => getAttempt(core, attempt, other)).status).toBe(404);
      expect(refusal(() => getAttempt(core, attempt + 1000)).status).toBe(404);
      const lab = triedOnce(h.id, { kind: 'lab' });
      expect(refusal(() => getAttempt(core, lab.attempt)).status).toBe(404);
    });

    it('a resend queues the same event again under the hook\'s current name and retries', () => {
      const h = make({ retries: 0 });
      const { delivery, attempt } = triedOnce(h.id, { retries: 0 });
      updateWebhook(core, account, h.id, { name: 'CRM now', retries: 3 }, 'merge');
      const again = findDelivery(core, resendAttempt(core, attempt, account))!;
      const first = findDelivery(core, delivery)!;
      expect(again).toMatchObject({ event_id: first.event_id, url: first.url, payload: first.payload, source_id: h.id, source_name: 'CRM now', retries: 3, status: 'pending' });
      expect(again.id).not.toBe(first.id);
    });

    it('a resend is refused when the delivery is no longer kept, the hook is gone or it is disabled', () => {
      const h = make();
      const gone = triedOnce(h.id);
      core.db.prepare('DELETE FROM outbox WHERE id = ?').run(gone.delivery);
      const expired = refusal(() => resendAttempt(core, gone.attempt, account));
      expect(expired).toEqual({ status: 400, data: { attempt: { expired: { message: 'the delivery of this attempt is no longer kept', value: gone.attempt } } } });

      const off = triedOnce(h.id);
      updateWebhook(core, account, h.id, { enabled: false }, 'merge');
      expect(refusal(() => resendAttempt(core, off.attempt, account))).toEqual({
        status: 400,
        data: { hook_id: { disabled: { message: 'the webhook is disabled: enable it first', value: h.id } } },
      });

      transaction(core.db, () => deleteWebhook(core, account, h.id));
      expect(refusal(() => resendAttempt(core, off.attempt, account))).toEqual({
        status: 400,
        data: { hook_id: { not_found: { message: 'the webhook of this attempt no longer exists', value: h.id } } },
      });
    });
  });

  describe('replaying an account\'s deliveries', () => {
    const replayAccount = 'c'.repeat(32);
    it('a window that ends before it starts is refused; one of a single instant is not', () => {
      const r = refusal(() => replayDeliveries(core, replayAccount, { since: 2_000, until: 1_000 }));
      expect(r).toEqual({ status: 400, data: { until: { date_range: { message: 'until is prior to since', value: 1_000, cause: 2_000 } } } });
      expect(replayDeliveries(core, replayAccount, { since: 1_000, until: 1_000 })).toEqual({ replayed: 0, skipped: 0 });
      expect(replayDeliveries(core, replayAccount, { since: 1_000 })).toEqual({ replayed: 0, skipped: 0 });
    });

    it('failed_only sends failed and cancelled deliveries again; without it delivered ones too; those on their way never', () => {
      const since = Date.now() - 1;
      /** A hook with one delivery in each state; answers the hook and the event ids by state. */
      const hookWithEveryState = () => {
        const h = make({}, replayAccount);
        const events = transaction(core.db, () =>
          Object.fromEntries(
            (['delivered', 'failed', 'cancelled', 'pending', 'sending'] as const).map((status, i) => {
              const id = enqueueDelivery(core, { kind: WEBHOOK_KIND, accountId: replayAccount, sourceId: h.id, eventName: 'channel_create', url: String(h.doc.uri), method: 'post', payload: { i }, dueAt: Date.now() + 60_000 });
              core.db.prepare('UPDATE outbox SET status = ? WHERE id = ?').run(status, id);
              return [status, findDelivery(core, id)!.event_id];
            }),
          ),
        );
        return { h, events };
      };
      const queuedAgain = (hookId: string) =>
        (core.db.prepare("SELECT event_id FROM outbox WHERE source_id = ? AND status = 'pending' ORDER BY id").all(hookId) as { event_id: string }[]).map((r) => r.event_id).slice(1);
      const failedOnly = hookWithEveryState();
      expect(replayDeliveries(core, replayAccount, { since, hookId: failedOnly.h.id, failedOnly: true })).toEqual({ replayed: 2, skipped: 0 });
      expect(queuedAgain(failedOnly.h.id)).toEqual([failedOnly.events.failed, failedOnly.events.cancelled]);
      const all = hookWithEveryState();
      expect(replayDeliveries(core, replayAccount, { since, hookId: all.h.id })).toEqual({ replayed: 3, skipped: 0 });
      expect(queuedAgain(all.h.id)).toEqual([all.events.delivered, all.events.failed, all.events.cancelled]);
    });

    it('a replay of more deliveries than one transaction takes sends each once', () => {
      const h = make({}, other);
      const since = Date.now() - 1;
      transaction(core.db, () => {
        for (let i = 0; i < 501; i++) {
          const id = enqueueDelivery(core, { kind: WEBHOOK_KIND, accountId: other, sourceId: h.id, eventName: 'channel_create', url: String(h.doc.uri), method: 'post', payload: { i }, dueAt: Date.now() + 60_000 });
          core.db.prepare("UPDATE outbox SET status = 'delivered' WHERE id = ?").run(id);
        }
      });
      expect(replayDeliveries(core, other, { since })).toEqual({ replayed: 501, skipped: 0 });
      const perEvent = core.db.prepare("SELECT max(n) AS most FROM (SELECT count(*) AS n FROM outbox WHERE account_id = ? AND status = 'pending' GROUP BY event_id)").get(other) as { most: number };
      expect(perEvent.most).toBe(1);
    });
  });
});
