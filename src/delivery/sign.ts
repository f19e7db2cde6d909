import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';

/** How far a `webhook-timestamp` may be from the receiver's clock (the Standard Webhooks tolerance). */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

/** The key bytes of a Standard Webhooks secret (`whsec_<base64>` or bare base64). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** True when a secret decodes to a key of 24 to 64 bytes (the Standard Webhooks range). */
export function isValidSecret(secret: string): boolean {
  const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false;
  const n = secretKey(secret).length;
  return n >= 24 && n <= 64;
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

const keys = new Map<string, KeyObject>();

/** A secret's key, decoded once: every delivery of a hook (and every request a sink checks) uses the same. */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the cap of the cache of decoded keys shows in no signature
    if (keys.size >= 1000) keys.clear();
    keys.set(secret, (key = createSecretKey(secretKey(secret))));
  }
  return key;
}

function mac(secret: string, id: string, timestamp: string, body: string): string {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * The Standard Webhooks headers for one try: `webhook-id` (stable across retries),
 * `webhook-timestamp` (unix seconds of this try) and `webhook-signature`: one
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated (a rotated-out
 * secret signs beside the new one while its grace lasts).
 */
export function signatureHeaders(secrets: readonly string[], id: string, body: string, nowMs: number = Date.now()): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000).toString();
  const signature = secrets.map((s) => `v1,${mac(s, id, timestamp, body)}`).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}

/** What checking a request's signature found: the secret (by position) one of its signatures was made with, or why none. */
export type SignatureCheck = { ok: true; secretIndex: number } | { ok: false; reason: string };

/**
 * Checks the Standard Webhooks signature of a request as a receiver does: the timestamp within the
 * tolerance, and one of the `v1,` signatures made with one of `secrets` over `id.timestamp.body`.
 */
export function verifySignature(
  secrets: readonly string[],
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowMs: number = Date.now(),
): SignatureCheck {
  const ts = Number(headers.timestamp);
  if (!/^\d+$/.test(headers.timestamp)) return { ok: false, reason: `webhook-timestamp ${JSON.stringify(headers.timestamp)} is not unix seconds` };
  if (Math.abs(nowMs / 1000 - ts) > TIMESTAMP_TOLERANCE_S) return { ok: false, reason: `webhook-timestamp ${ts} is more than ${TIMESTAMP_TOLERANCE_S} s away` };
  const given = headers.signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  if (given.length === 0) return { ok: false, reason: 'no v1 signature in webhook-signature' };
  for (let i = 0; i < secrets.length; i++) {
    const expected = Buffer.from(mac(secrets[i], headers.id, headers.timestamp, body), 'base64');
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) return { ok: true, secretIndex: i };
  }
  return { ok: false, reason: `no signature matches the ${secrets.length === 1 ? 'secret' : `${secrets.length} secrets`}` };
}
