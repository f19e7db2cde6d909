import type { Core } from '../core-type.js';

/** The system configuration category (and account config id) of delivery settings. */
export const WEBHOOKS_CATEGORY = 'webhooks';

/** How deliveries are sent, retried, counted and kept. */
export interface DeliverySettings {
  /** deliveries failing (retries exhausted) this many times within the window disable a hook */
  attemptFailureCount: number;
  attemptFailureExpiryMs: number;
  /** the whole request, connect to last body byte */
  requestTimeoutMs: number;
  /** first retry delay, doubled for each further retry */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  attemptsRetentionSeconds: number;
  /** requests in flight to one target (a hook's endpoint) at most */
  perTargetConcurrency: number;
  /** consecutive failed tries after which a target's circuit breaker opens (one try at a time) */
  breakerFailureThreshold: number;
  /** a hook's replaced secret keeps signing (a second signature) this long, unless told otherwise */
  secretRotationGraceSeconds: number;
}

/** The longest delay a setting may ask for (a timeout, a retry's wait): one day. */
export const MAX_DELAY_MS = 86_400_000;

/** The slowest pace a delivery target may be held to: one try every 100 s (a slower rate is read as this). */
export const MIN_RATE_PER_S = 0.01;

/**
 * The defaults, with the configuration key each one is read from, its bounds (a stored value
 * below `min` is ignored, one above `max` is read as `max`; writes outside them are refused)
 * and its meaning.
 */
export const SETTINGS: { [K in keyof DeliverySettings]: { key: string; default: number; min: number; max?: number; about: string } } = {
  attemptFailureCount: {
    key: 'attempt_failure_count',
    default: 6,
    min: 1,
    about: 'Deliveries of a hook that fail for good (retries used up) this many times within `attempt_failure_expiry_ms` disable it, with a `disable_reason`.',
  },
  attemptFailureExpiryMs: {
    key: 'attempt_failure_expiry_ms',
    default: 60_000,
    min: 1,
    about: 'The window, in milliseconds, in which `attempt_failure_count` failures disable a hook.',
  },
  requestTimeoutMs: {
    key: 'request_timeout_ms',
    default: 10_000,
    min: 1,
    max: MAX_DELAY_MS,
    about: 'Milliseconds a try may take, from connecting to the last byte of the answer; a try that takes longer failed.',
  },
  retryBaseDelayMs: { key: 'retry_base_delay_ms', default: 1_000, min: 0, max: MAX_DELAY_MS, about: 'Milliseconds before the first retry; each further retry waits twice as long.' },
  retryMaxDelayMs: {
    key: 'retry_max_delay_ms',
    default: 60_000,
    min: 0,
    max: MAX_DELAY_MS,
    about: 'The longest wait between two tries, in milliseconds; a `Retry-After` answer is held to it too.',
  },
  attemptsRetentionSeconds: {
    key: 'attempts_retention_s',
    default: 604_800,
    min: 1,
    about: 'Seconds attempt records, and the requests `tel sink` records, are kept.',
  },
  perTargetConcurrency: {
    key: 'per_target_concurrency',
    default: 16,
    min: 1,
    about: "Requests in flight at most to one target (a hook's URL without its query); the others wait their turn.",
  },
  breakerFailureThreshold: {
    key: 'breaker_failure_threshold',
    default: 5,
    min: 1,
    about: "Consecutive failed tries after which a target's circuit breaker opens: the target is then tried one delivery at a time until it answers.",
  },
  secretRotationGraceSeconds: {
    key: 'secret_rotation_grace_s',
    default: 86_400,
    min: 0,
    about: 'Seconds a replaced signing secret keeps signing beside the new one (a second signature); 0 for none.',
  },
};

/**
 * System-wide only (never an account's to override): deliveries refuse to connect to loopback,
 * private, link-local and other non-public addresses, checked against the address connected to.
 */
export const DENY_PRIVATE_NETWORKS = 'deny_private_networks';

/** Whether deliveries may connect to public addresses only (the system `webhooks` setting; off by default). */
export function denyPrivateNetworks(core: Core): boolean {
  return core.config.value<unknown>(WEBHOOKS_CATEGORY, DENY_PRIVATE_NETWORKS, false) === true;
}

/** The built-in defaults as the configuration document's keys (`attempt_failure_count: 6`, …). */
export function defaultSettingsDoc(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of Object.values(SETTINGS)) out[s.key] = s.default;
  return out;
}

function pick(value: unknown, min: number, max = Infinity): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= min ? Math.min(n, max) : undefined;
}

/**
 * The settings that apply to an account, as `GET /v2/accounts/{id}/configs/webhooks` shows them:
 * its overrides, else its reseller's, else the system `webhooks` category's `default` node, else
 * the built-in defaults.
 */
export function deliverySettings(core: Core, accountId?: string): DeliverySettings {
  const system = core.config.get(WEBHOOKS_CATEGORY)?.default ?? {};
  const account = accountId ? (core.config.forAccount(accountId, WEBHOOKS_CATEGORY) ?? {}) : {};
  const reseller = accountId ? (core.config.resellerSettings(accountId, WEBHOOKS_CATEGORY) ?? {}) : {};
  const out = {} as DeliverySettings;
  for (const [name, s] of Object.entries(SETTINGS) as [keyof DeliverySettings, (typeof SETTINGS)[keyof DeliverySettings]][]) {
    out[name] = pick(account[s.key], s.min, s.max) ?? pick(reseller[s.key], s.min, s.max) ?? pick(system[s.key], s.min, s.max) ?? s.default;
  }
  return out;
}

interface Remembered {
  system: unknown;
  account: unknown;
  reseller: unknown;
  settings: DeliverySettings;
}

const remembered = new WeakMap<Core, Map<string, Remembered>>();

/**
 * `deliverySettings`, for the sender's every try: worked out again only when the documents it
 * comes from changed. They are read through row caches, which give the same object until a write
 * (this process's or another's) replaces it, so a change applies to the next try.
 */
export function currentDeliverySettings(core: Core, accountId = ''): DeliverySettings {
  let byAccount = remembered.get(core);
  if (!byAccount) remembered.set(core, (byAccount = new Map()));
  const system = core.config.get(WEBHOOKS_CATEGORY);
  const account = accountId ? core.config.forAccount(accountId, WEBHOOKS_CATEGORY) : null;
  const reseller = accountId ? core.config.resellerSettings(accountId, WEBHOOKS_CATEGORY) : null;
  const hit = byAccount.get(accountId);
  if (hit && hit.system === system && hit.account === account && hit.reseller === reseller) return hit.settings;
  const settings = deliverySettings(core, accountId || undefined);
  if (byAccount.size >= 10_000) byAccount.clear();
  byAccount.set(accountId, { system, account, reseller, settings });
  return settings;
}

/** The delay before retry number `retry` (1 for the first): base × 2^(retry−1), capped. */
export function retryDelayMs(settings: DeliverySettings, retry: number): number {
  const raw = settings.retryBaseDelayMs * 2 ** Math.max(0, retry - 1);
  return Math.min(raw, settings.retryMaxDelayMs);
}

/**
 * The delay a `Retry-After` header asks for (seconds or an HTTP date), bounded by the maximum
 * retry delay; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, settings: DeliverySettings, nowMs: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  let ms: number;
  if (/^\s*\d+\s*$/.test(value)) ms = Number(value) * 1000;
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(Math.max(ms, 0), settings.retryMaxDelayMs);
}
