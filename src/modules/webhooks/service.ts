import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { stripServerFields } from '../documents/store.js';
import { clearFailures } from './disabler.js';
import { deliveriesMade, enqueueDelivery, findDelivery, type DeliveryHead, type DeliveryRow } from '../../delivery/outbox.js';
import { findAttempt, listAttempts, type AttemptRow } from '../../delivery/attempts.js';
import { deliverySettings } from '../../delivery/settings.js';
import { cancelWaiting } from '../../delivery/claim.js';
import { newSecret } from '../../delivery/sign.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import type { TimeWindow } from '../../util/time.js';
import { wholeDoc } from '../../util/doc-filter.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import { validateWebhook } from './schema.js';
import { deliveryTraits, WEBHOOK_KIND } from './match.js';
import { findHook, findHookById, getHook, hooksPage, insertHook, listHooks, reenableAutoDisabledHooks, removeHook, setPreviousSecret, writeHook, type Hook } from './store.js';

/** The request fields a client may not set (Monster UI posts whole documents back). */
function incomingDoc(input: Record<string, unknown>): Record<string, unknown> {
  const { disable_reason: _reason, ...rest } = stripServerFields(input);
  return rest;
}

/** What a hook's secret and its uri's `user:password@` read as for callers who may not see them. */
export const MASKED = '********';

/** The uri with its `user:password@` masked; the uri itself when it has none. */
export function maskedUri(uri: unknown): unknown {
  if (typeof uri !== 'string') return uri;
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, `$1${MASKED}@`);
}

/**
 * A hook's JSON as a caller sees it: admins of the account see everything; others see the secret
 * and the uri's credentials masked, except the fields their own request has just set.
 */
export function hookView(json: Record<string, unknown>, isAdmin: boolean, sent: Record<string, unknown> = {}): Record<string, unknown> {
  if (isAdmin) return json;
  const out = { ...json };
  if (out.secret !== undefined && sent.secret !== out.secret) out.secret = MASKED;
  if (out.uri !== undefined && sent.uri !== out.uri) out.uri = maskedUri(out.uri);
  return out;
}

/**
 * A document posted back whole after a masked read carries the masks: they mean "unchanged",
 * never a new secret or credentials literally equal to the mask.
 */
function unmasked(incoming: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  const out = { ...incoming };
  if (out.secret === MASKED && current.secret !== undefined) out.secret = current.secret;
  if (typeof out.uri === 'string' && out.uri !== current.uri && out.uri === maskedUri(current.uri)) out.uri = current.uri;
  return out;
}

/**
 * A hook as GET answers it: the document (values stored before they were bounded read as the
 * bound, as the engine reads them: `withinBounds`), `id`, and `disable_reason` when the disabler
 * turned it off.
 */
export function hookJson(h: Hook): Record<string, unknown> {
  const out: Record<string, unknown> = { ...h.doc, id: h.id };
  if (h.disableReason) out.disable_reason = h.disableReason;
  return out;
}

/** A hook as its listing's filters see it: as `admin` or not is shown it (see hookView), with Kazoo's private fields. */
export function hookFilterDoc(h: Hook, admin: boolean): Record<string, unknown> {
  return wholeDoc(hookView(hookJson(h), admin), { id: h.id, type: 'webhook', rev: h.rev, accountId: h.accountId, created: h.created, modified: h.modified });
}

/** A hook as the account listing shows it. */
export function hookSummary(h: Hook): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: h.id,
    hook: h.doc.hook,
    name: h.doc.name,
    uri: h.doc.uri,
    enabled: h.doc.enabled !== false,
  };
  if (h.doc.group !== undefined) out.group = h.doc.group;
  if (h.disableReason) out.disable_reason = h.disableReason;
  return out;
}

/** The account's hooks, oldest first. */
export function listWebhooks(core: Core, accountId: string): Hook[] {
  return listHooks(core, accountId);
}

/** One page of the account's hooks, oldest first (newest first when `descending`). */
export function webhooksPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending = false): Page<Hook, CompoundKey> {
  return hooksPage(core, accountId, q, descending);
}

/** One hook or the 404. */
export function getWebhook(core: Core, accountId: string, id: string): Hook {
  return getHook(core, accountId, id);
}

/** Creates a hook from a request document: validated, defaults filled; `id` may be chosen (`tel apply`). */
export function createWebhook(core: Core, accountId: string, input: Record<string, unknown>, id?: string): Hook {
  const doc = validateWebhook(incomingDoc(input));
  return transaction(core.db, () => insertHook(core, accountId, doc, id));
}

/**
 * Replaces (POST) or merges (PATCH) a hook. Enabling clears the disable reason; any edit
 * starts the failure count again, as Kazoo flushes it when a hook changes. A new `secret` leaves
 * the old one signing beside it for `secret_rotation_grace_s` (see rotateSecret).
 */
export function updateWebhook(
  core: Core,
  accountId: string,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
  actor?: Actor,
): Hook {
  return changeWebhook(core, accountId, id, input, mode, { ifMatch, actor });
}

/** What a signed hook's deliveries say and where they go: changed by an admin of the account only. */
const SIGNED_CONTENT = ['uri', 'custom_data', 'http_verb', 'format'] as const;

/**
 * A hook with a secret signs what it sends with a key only admins read: a plain user who could
 * repoint it (or add to its payload) would have tel sign their content, and a receiver judge it
 * valid. Such a change needs an admin of the account, and so does any change of the secret itself
 * (setting, replacing, clearing it), or clearing it would open the rest in a second step; other
 * fields stay open to its users.
 */
function checkSignedHookChange(core: Core, actor: Actor | undefined, current: Hook, doc: Record<string, unknown>): void {
  if (!actor || isAccountAdmin(core, actor)) return;
  if (doc.secret !== current.doc.secret) throw errors.forbidden('changing the secret of a webhook needs an admin of the account');
  const signs = current.doc.secret !== undefined || (current.previousSecret !== null && current.previousSecret.until > Date.now());
  if (!signs) return;
  const changed = SIGNED_CONTENT.filter((f) => JSON.stringify(current.doc[f]) !== JSON.stringify(doc[f]));
  if (changed.length > 0) throw errors.forbidden(`changing ${changed.join(', ')} of a signed webhook needs an admin of the account`);
}

function changeWebhook(
  core: Core,
  accountId: string,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  opts: { ifMatch?: string; graceMs?: number; actor?: Actor },
): Hook {
  return transaction(core.db, () => {
    const current = getHook(core, accountId, id);
    const incoming = unmasked(incomingDoc(input), current.doc);
    // Kazoo merges a webhook's PATCH at the top level only (its other kinds merge deeply)
    const merged = mode === 'merge' ? { ...current.doc, ...incoming } : incoming;
    const doc = validateWebhook(merged);
    checkSignedHookChange(core, opts.actor, current, doc);
    const reason = doc.enabled === false ? current.disableReason : null;
    clearFailures(core, id);
    const hook = writeHook(core, current, doc, reason, opts.ifMatch);
    const previous = replacedSecret(current, doc, opts.graceMs ?? deliverySettings(core, accountId).secretRotationGraceSeconds * 1000);
    if (previous === undefined) return hook;
    setPreviousSecret(core, id, previous);
    return { ...hook, previousSecret: previous };
  });
}

/**
 * What a write does to the rotated-out secret: undefined when the secret is unchanged (a grace
 * under way goes on), the old secret with the end of its grace when a new one replaces it, null
 * when nothing is to sign beside the new one (no secret before or after, or no grace). A second
 * rotation within the grace replaces the first one's old secret.
 */
function replacedSecret(current: Hook, doc: Record<string, unknown>, graceMs: number): Hook['previousSecret'] | undefined {
  const before = current.doc.secret;
  if (doc.secret === before) return undefined;
  if (typeof before !== 'string' || typeof doc.secret !== 'string' || graceMs <= 0) return null;
  return { secret: before, until: Date.now() + graceMs };
}

/**
 * Gives a hook a new signing secret (`secret`, or a new random one) while the old one keeps
 * signing its deliveries beside it (two `v1,` signatures) for `graceMs` (default the account's
 * `secret_rotation_grace_s`). `accountId`, when given, must own the hook. Answers the hook.
 */
export function rotateSecret(core: Core, hookId: string, opts: { accountId?: string; graceMs?: number; secret?: string } = {}): Hook {
  const hook = findHookById(core, hookId);
  if (!hook || (opts.accountId && hook.accountId !== opts.accountId)) throw errors.badIdentifier(hookId);
  return changeWebhook(core, hook.accountId, hookId, { secret: opts.secret ?? newSecret() }, 'merge', { graceMs: opts.graceMs });
}

/** Deletes a hook and the deliveries of it still waiting to be sent; answers what it was. */
export function deleteWebhook(core: Core, accountId: string, id: string, ifMatch?: string): Hook {
  return transaction(core.db, () => {
    const current = getHook(core, accountId, id);
    removeHook(core, current, ifMatch);
    clearFailures(core, id);
    cancelWaiting(core, id);
    return current;
  });
}

/** Turns a hook on (clearing any disable reason and its failure count); what a `tel watch` key calls. */
export function reenableHook(core: Core, accountId: string, hookId: string): Hook {
  return updateWebhook(core, accountId, hookId, { enabled: true }, 'merge');
}

/** Turns one hook on or off by hand. */
export function setWebhookEnabled(core: Core, accountId: string, hookId: string, enabled: boolean): Hook {
  return updateWebhook(core, accountId, hookId, { enabled }, 'merge');
}

/**
 * Bulk re-enable: turns on the hooks the disabler turned off (manually disabled hooks stay
 * off) in the account, or in the account and all its descendants. Answers how many changed.
 */
export function reenableAutoDisabled(core: Core, accountId: string, descendants: boolean): number {
  return transaction(core.db, () => {
    const ids = reenableAutoDisabledHooks(core, accountId, descendants);
    // enabling starts the failure count again, as any edit does
    for (const id of ids) clearFailures(core, id);
    return ids.length;
  });
}

/**
 * The attempt log of an account's webhooks, or of one of them (404 when it does not exist):
 * newest first, in a time window, paged by attempt id. The API and the CLI both list with it.
 */
export function listHookAttempts(
  core: Core,
  accountId: string,
  q: TimeWindow & PageQuery<CompoundKey> & { hookId?: string } = {},
): Page<AttemptRow, CompoundKey> {
  const { hookId, ...rest } = q;
  if (hookId) getHook(core, accountId, hookId);
  return listAttempts(core, { ...rest, kind: WEBHOOK_KIND, accountId, sourceId: hookId });
}

/** An attempt of an account's webhooks, or the 404. */
export function getAttempt(core: Core, attemptId: number, accountId?: string): AttemptRow {
  const a = findAttempt(core, attemptId);
  if (!a || a.kind !== WEBHOOK_KIND || (accountId && a.account_id !== accountId)) throw errors.badIdentifier(String(attemptId));
  return a;
}

/**
 * Sends a recorded delivery again: a new outbox delivery with the same URL, method, body and
 * event id (a receiver that de-duplicates sees the same event), with the hook's current
 * secret and retries. Refused while the hook is disabled. Answers the new delivery id.
 */
export function resendAttempt(core: Core, attemptId: number, accountId?: string): number {
  return transaction(core.db, () => {
    const attempt = getAttempt(core, attemptId, accountId);
    const delivery = findDelivery(core, attempt.delivery_id);
    if (!delivery) throw errors.invalidField('attempt', 'expired', 'the delivery of this attempt is no longer kept', { value: attemptId });
    const hook = attempt.source_id ? findHook(core, attempt.account_id, attempt.source_id) : undefined;
    if (!hook) throw errors.invalidField('hook_id', 'not_found', 'the webhook of this attempt no longer exists', { value: attempt.source_id });
    if (hook.doc.enabled === false) throw hookDisabled(hook);
    return redeliver(core, delivery, hook);
  });
}

function hookDisabled(hook: Hook) {
  return errors.invalidField('hook_id', 'disabled', 'the webhook is disabled: enable it first', { value: hook.id });
}

/**
 * A recorded delivery queued again: the same URL, method, body and event id (a receiver that
 * de-duplicates sees the same event), signed, paced and retried as its hook is now.
 */
function redeliver(core: Core, delivery: DeliveryRow, hook: Hook): number {
  return enqueueDelivery(core, {
    kind: delivery.kind,
    accountId: delivery.account_id,
    sourceId: hook.id,
    sourceName: String(hook.doc.name ?? ''),
    eventName: delivery.event_name,
    url: delivery.url,
    method: delivery.method,
    format: delivery.format,
    payload: JSON.parse(delivery.payload),
    retries: Number(hook.doc.retries ?? delivery.retries),
    headers: JSON.parse(delivery.headers),
    eventId: delivery.event_id,
    ...deliveryTraits(hook.doc, hook.previousSecret),
  });
}

/** Which recorded deliveries a replay sends again. */
export interface ReplayFilter {
  /** only this hook's (404 when it does not exist, refused while it is disabled) */
  hookId?: string;
  /** made at or after (unix ms) */
  since: number;
  /** made at or before (unix ms); default now */
  until?: number;
  /** only those that never reached the endpoint: failed for good, or dropped because their hook was off */
  failedOnly?: boolean;
}

/** What a replay did: deliveries queued again, and those left out because their hook is disabled or gone. */
export interface ReplayResult {
  replayed: number;
  skipped: number;
}

/** Deliveries queued per transaction: a long replay never holds the file for long. */
const REPLAY_CHUNK = 500;

/**
 * Sends an account's recorded webhook deliveries made in a window again, with their original
 * event ids (tel's extension, as delivery services offer "replay" or "recover"). An event
 * delivered several times (resent, replayed) counts once, as its latest delivery: with
 * `failedOnly`, an event a later delivery brought through is not sent again. Deliveries still on
 * their way are left alone. The API and the CLI both replay with it.
 */
export function replayDeliveries(core: Core, accountId: string, f: ReplayFilter): ReplayResult {
  if (f.until !== undefined && f.until < f.since) {
    throw errors.invalidField('until', 'date_range', 'until is prior to since', { value: f.until, cause: f.since });
  }
  if (f.hookId) {
    const hook = getHook(core, accountId, f.hookId);
    if (hook.doc.enabled === false) throw hookDisabled(hook);
  }
  const latest = new Map<string, DeliveryHead>();
  for (const d of deliveriesMade(core, { kind: WEBHOOK_KIND, accountId, sourceId: f.hookId, createdFrom: f.since, createdTo: f.until })) {
    latest.set(`${d.source_id} ${d.event_id}`, d);
  }
  const wanted = new Set<DeliveryRow['status']>(f.failedOnly ? ['failed', 'cancelled'] : ['delivered', 'failed', 'cancelled']);
  const chosen = [...latest.values()].filter((d) => wanted.has(d.status)).map((d) => d.id);
  const hooks = new Map<string, Hook | undefined>();
  const result: ReplayResult = { replayed: 0, skipped: 0 };
  for (let i = 0; i < chosen.length; i += REPLAY_CHUNK) {
    transaction(core.db, () => {
      for (const id of chosen.slice(i, i + REPLAY_CHUNK)) {
        const delivery = findDelivery(core, id);
        if (!delivery?.source_id) continue;
        if (!hooks.has(delivery.source_id)) hooks.set(delivery.source_id, findHook(core, accountId, delivery.source_id));
        const hook = hooks.get(delivery.source_id);
        if (!hook || hook.doc.enabled === false) {
          result.skipped++;
          continue;
        }
        redeliver(core, delivery, hook);
        result.replayed++;
      }
    });
  }
  return result;
}
