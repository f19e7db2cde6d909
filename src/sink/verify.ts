import type { IncomingHttpHeaders } from 'node:http';
import type { Core } from '../core-type.js';
import { sendingSource } from '../delivery/outbox.js';
import { verifySignature } from '../delivery/sign.js';
import { findHookById, type Hook } from '../modules/webhooks/store.js';
import type { Verdict } from './records.js';

/** What the sink concluded about a request's signature, and whose it is. */
export interface Judgement {
  verdict: Verdict;
  /** which secret matched, or why none did */
  detail: string;
  eventId: string | null;
  hookId: string | null;
  /** the hook, when the database has it */
  hook: Hook | undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The secrets a hook signs with now: its own, and a rotated-out one while its grace lasts. */
function hookSecrets(hook: Hook, nowMs: number): { secret: string; name: string }[] {
  const out = [{ secret: String(hook.doc.secret), name: "the hook's secret" }];
  const p = hook.previousSecret;
  if (p && p.until > nowMs) out.push({ secret: p.secret, name: `the hook's previous secret (it signs until ${new Date(p.until).toISOString()})` });
  return out;
}

/**
 * Judges a request as a webhook consumer would: unsigned without Standard Webhooks headers;
 * otherwise its hook is found by `X-Hook-ID` (tel sends it), else by `webhook-id` among the
 * deliveries being sent, and one of its `v1,` signatures must be made with the hook's secret — or
 * its rotated-out one during the grace, or `secret` when the sink was given one (then no hook is
 * needed) — within the timestamp tolerance.
 */
export function judge(core: Core, headers: IncomingHttpHeaders, body: string, secret?: string, nowMs: number = Date.now()): Judgement {
  const signature = header(headers, 'webhook-signature');
  const webhookId = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const eventId = header(headers, 'x-event-id') ?? webhookId ?? null;
  const hookId = header(headers, 'x-hook-id') ?? (webhookId ? sendingSource(core, webhookId) : undefined) ?? null;
  const hook = hookId ? findHookById(core, hookId) : undefined;
  const out = { eventId, hookId, hook };
  if (signature === undefined) return { ...out, verdict: 'unsigned', detail: 'no webhook-signature header' };
  if (webhookId === undefined || timestamp === undefined) {
    return { ...out, verdict: 'invalid', detail: 'webhook-signature without webhook-id and webhook-timestamp' };
  }
  let secrets: { secret: string; name: string }[];
  if (secret !== undefined) secrets = [{ secret, name: 'the --secret given' }];
  else if (!hook) {
    const why = hookId ? `no hook ${hookId} in the database` : 'no X-Hook-ID header, and no delivery being sent with this webhook-id';
    return { ...out, verdict: 'unknown hook', detail: why };
  } else if (typeof hook.doc.secret !== 'string') return { ...out, verdict: 'invalid', detail: `hook ${hook.id} has no secret` };
  else secrets = hookSecrets(hook, nowMs);
  const check = verifySignature(
    secrets.map((s) => s.secret),
    { id: webhookId, timestamp, signature },
    body,
    nowMs,
  );
  return check.ok ? { ...out, verdict: 'valid', detail: `signed with ${secrets[check.secretIndex].name}` } : { ...out, verdict: 'invalid', detail: check.reason };
}
