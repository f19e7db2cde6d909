import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

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

/**
 * The Standard Webhooks headers for one try: `webhook-id` (stable across retries),
 * `webhook-timestamp` (unix seconds of this try) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`).
 */
export function signatureHeaders(secret: string, id: string, body: string, nowMs: number = Date.now()): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000).toString();
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
