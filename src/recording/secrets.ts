import { randomBytes, randomInt, scrypt, type ScryptOptions } from 'node:crypto';
import type { SecretKind } from './format.js';

/**
 * What a secret's placeholder is made of. A recording must be safe to attach to a bug report, yet
 * `tel diff` must log in again where the recorded client did: it matches the secrets of a lab the user
 * gives to the placeholders of the recording's logins. So the placeholders of login secrets
 * (credentials, API keys) are a salted hash, the salt in the recording's header: whoever holds the
 * recording can test a guess of a password at the cost of one scrypt (16 MiB, some 40 ms), never
 * read it. Every other secret (tokens, passwords set, signing secrets, pins) gets a random
 * placeholder: the same secret the same placeholder within one recording, nothing to test.
 */
export const PLACEHOLDER_SCRYPT: ScryptOptions = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** The header's words for it. */
export const PLACEHOLDER_RULE =
  'credentials and API keys: redacted:<kind>: and the hex of 8 bytes of scrypt(secret, salt, N=16384, r=8, p=1); any other secret: a random placeholder, the same for the same secret (listed in a secret line)';

/** The kinds whose placeholder is salted (tel diff matches a lab's secrets to them). */
export const SALTED_KINDS: ReadonlySet<SecretKind> = new Set(['credentials', 'api_key']);

/** Names of fields, query parameters and headers (`-` read as `_`) that hold a secret. */
const KINDS_BY_NAME: Record<string, SecretKind> = {
  auth_token: 'token',
  token: 'token',
  access_token: 'token',
  refresh_token: 'token',
  authorization: 'token',
  proxy_authorization: 'token',
  cookie: 'token',
  set_cookie: 'token',
  api_key: 'api_key',
  apikey: 'api_key',
  pvt_api_key: 'api_key',
  credentials: 'credentials',
  password: 'password',
  passwd: 'password',
  secret: 'secret',
  private_key: 'secret',
  pin: 'pin',
};

/** Names already looked at (a listing repeats its rows' field names): the kind, or null for none. */
const kindsSeen = new Map<string, SecretKind | null>();
const KINDS_SEEN_MAX = 10_000;

/** The kind of secret a field, query parameter or header of this name holds, if any. */
export function kindOfName(name: string): SecretKind | undefined {
  let kind = kindsSeen.get(name);
  if (kind === undefined) {
    kind = kindOfNameNow(name) ?? null;
    if (kindsSeen.size < KINDS_SEEN_MAX) kindsSeen.set(name, kind);
  }
  return kind ?? undefined;
}

function kindOfNameNow(name: string): SecretKind | undefined {
  const n = name.toLowerCase().replaceAll('-', '_');
  const known = KINDS_BY_NAME[n];
  if (known) return known;
  if (n.endsWith('_token')) return 'token';
  if (n.endsWith('_api_key')) return 'api_key';
  if (n.endsWith('_password')) return 'password';
  if (n.endsWith('_secret')) return 'secret';
  return undefined;
}

/** The salted placeholder of a login secret (see PLACEHOLDER_SCRYPT). */
export function saltedPlaceholder(kind: SecretKind, secret: string, salt: Buffer): Promise<string> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, 8, PLACEHOLDER_SCRYPT, (err, key) => (err ? reject(err) : resolve(`redacted:${kind}:${key.toString('hex')}`))),
  );
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random placeholder for a secret, of a shape the API still accepts where the secret went: a pin
 * stays digits of its length, a webhook secret a `whsec_` one (base64 of 24 bytes), any other one
 * 30 characters at most (a SIP password's limit is 32).
 */
export function randomPlaceholder(kind: SecretKind, secret: string): string {
  if (/^\d{1,32}$/.test(secret)) return Array.from(secret, () => String(randomInt(10))).join('');
  if (secret.startsWith('whsec_')) return `whsec_${Array.from({ length: 32 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
  return `redacted:${kind}:${randomBytes(6).toString('hex')}`;
}
