import type { Core } from '../../core-type.js';
import { autoDisableHook } from './store.js';
import { deliverySettings } from '../../delivery/settings.js';
import { stmt } from '../../store/db.js';
import { publishNotification } from './notifications.js';

/**
 * Counts one failed delivery (its retries exhausted) against a hook; when the hook reaches
 * `attempt_failure_count` failures within `attempt_failure_expiry_ms` (the account's settings,
 * else the system's) it is disabled with a reason naming the failures. Runs inside the caller's
 * transaction.
 */
export function countFailure(core: Core, accountId: string, hookId: string, reason: string, at: number = Date.now()): void {
  const s = deliverySettings(core, accountId);
  stmt(core.db, 'INSERT INTO webhook_failures (account_id, hook_id, at, reason) VALUES (?, ?, ?, ?)').run(accountId, hookId, at, reason);
  const { n } = stmt(core.db, 'SELECT COUNT(*) n FROM webhook_failures WHERE hook_id = ? AND at > ?').get(hookId, at - s.attemptFailureExpiryMs) as {
    n: number;
  };
  if (n < s.attemptFailureCount) return;
  const why = `too many failed deliveries: ${n} within ${s.attemptFailureExpiryMs} ms (last: ${reason})`;
  const disabled = autoDisableHook(core, hookId, why);
  // Stryker disable next-line CallExpression: housekeeping; every way back to enabled (an edit, a re-enable) clears the count again
  clearFailures(core, hookId);
  // As Kazoo's disabler does: a `webhook_disabled` notification, which `notifications` hooks receive.
  if (disabled) publishNotification(core, accountId, 'webhook_disabled', { hook_id: hookId, disable_reason: why });
}

/** Forgets a hook's counted failures (any edit of the hook, and re-enabling, start the count again). */
export function clearFailures(core: Core, hookId: string): void {
  stmt(core.db, 'DELETE FROM webhook_failures WHERE hook_id = ?').run(hookId);
}

/** Deletes failures too old to count under any window shorter than `keepMs`. */
export function pruneFailures(core: Core, keepMs: number, nowMs: number = Date.now()): void {
  stmt(core.db, 'DELETE FROM webhook_failures WHERE at < ?').run(nowMs - keepMs);
}
