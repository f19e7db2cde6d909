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

/** Whom a request says it comes from: its event id, and its hook's id. */
export interface Claim {
  eventId: string | null;
  hookId: string | null;
}

/**
 * Reads whom a request comes from: `X-Event-ID` (else `webhook-id`), and its hook by `X-Hook-ID`
 * (tel sends it), else by `webhook-id` among the deliveries being sent — asked at once, while
 * the try is still under way (a request with its headers costs no read).
 */
export function identify(core: Core, headers: IncomingHttpHeaders): Claim {
  const webhookId = header(headers, 'webhook-id');
  return {
    eventId: header(headers, 'x-event-id') ?? webhookId ?? null,
    hookId: header(headers, 'x-hook-id') ?? (webhookId ? sendingSource(core, webhookId) : undefined) ?? null,
  };
}

/** How `judge` is to judge: whom the request claims to be from (else read), a secret, the time, hooks already read. */
export interface JudgeOptions {
  claim?: Claim;
  /** the sink's `--secret`: it decides alone */
  secret?: string;
  /** when the request arrived (the timestamp tolerance and a rotation's grace are reckoned from it) */
  nowMs?: number;
  /** hooks read for earlier requests of the same batch, by id */
  hooks?: Map<string, Hook | undefined>;
}

/**
 * Judges a request as a webhook consumer would: unsigned without Standard Webhooks headers;
 * otherwise one of its `v1,` signatures must be made with its hook's secret — or the hook's
 * rotated-out one during the grace, or `secret` when the sink was given one (then no hook is
 * needed) — within the timestamp tolerance; unknown hook when the database has no such hook.
 */
export function judge(core: Core, headers: IncomingHttpHeaders, body: string, opts: JudgeOptions = {}): Judgement {
  const { eventId, hookId } = opts.claim ?? identify(core, headers);
  const nowMs = opts.nowMs ?? Date.now();
  let hook: Hook | undefined;
  if (hookId && opts.hooks?.has(hookId)) hook = opts.hooks.get(hookId);
  else if (hookId) {
    hook = findHookById(core, hookId);
    opts.hooks?.set(hookId, hook);
  }
  const out = { eventId, hookId, hook };
  const signature = header(headers, 'webhook-signature');
  const webhookId = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  if (signature === undefined) return { ...out, verdict: 'unsigned', detail: 'no webhook-signature header' };
  if (webhookId === undefined || timestamp === undefined) {
    return { ...out, verdict: 'invalid', detail: 'webhook-signature without webhook-id and webhook-timestamp' };
  }
  let secrets: { secret: string; name: string }[];
  if (opts.secret !== undefined) secrets = [{ secret: opts.secret, name: 'the --secret given' }];
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
