import type { Core } from '../../core-type.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import { errors } from '../../errors.js';
import { transaction, stmt } from '../../store/db.js';
import { stripServerFields } from '../documents/store.js';
import { nextRevision } from '../../util/ids.js';
import { getAccount, masterAccount, resellerAbove } from '../accounts/service.js';
import { chargesFor, type ChargeItem } from './charges.js';
import { defaultLimits, validateLimits } from './schema.js';

/** The id every limits record answers with, as Kazoo's. */
export const LIMITS_ID = 'limits';

/** Keys a client may send that are never stored: the handshake flag and Kazoo's leaked postpay fields. */
const NOT_STORED = ['accept_charges', 'allow_postpay', 'max_postpay_amount'];

/** The reason a limits change is refused to a customer of a reseller (kept in the 403). */
export const LIMITS_FORBIDDEN_REASON = 'Please contact your phone provider to add limits.';

interface Row {
  doc: string;
  rev: string;
}

/** A stored (or default) limits record with its revision. */
export interface LimitsRecord {
  data: Record<string, unknown>;
  rev?: string;
}

/** What a change would do: the record after it and the charges it incurs. */
export interface LimitsQuote {
  current: Record<string, unknown>;
  next: Record<string, unknown>;
  charges: Record<string, ChargeItem>;
}

function stored(core: Core, accountId: string): { doc: Record<string, unknown>; rev: string } | undefined {
  const r = stmt(core.db, 'SELECT doc, rev FROM limits WHERE account_id = ?').get(accountId) as Row | undefined;
  return r ? { doc: JSON.parse(r.doc), rev: r.rev } : undefined;
}

/** An account's limits (`id` `limits`); the defaults when it never stored any. */
export function getLimits(core: Core, accountId: string): LimitsRecord {
  getAccount(core, accountId);
  const s = stored(core, accountId);
  return s ? { data: { ...s.doc, id: LIMITS_ID }, rev: s.rev } : { data: { ...defaultLimits(), id: LIMITS_ID } };
}

/**
 * How a change meets the stored record: `replace`d (the API's POST, as Kazoo's: the record sent,
 * its defaults filled) or `merge`d into it (the CLI's options, a lab's fields).
 */
export type LimitsMode = 'replace' | 'merge';

/** Validates a change and prices it, storing nothing. */
export function quoteLimits(core: Core, accountId: string, input: Record<string, unknown>, mode: LimitsMode = 'merge'): LimitsQuote {
  getAccount(core, accountId);
  const current = stored(core, accountId)?.doc ?? {};
  const incoming = stripServerFields(input);
  for (const k of NOT_STORED) delete incoming[k];
  const next = validateLimits(mode === 'merge' ? { ...current, ...incoming } : incoming);
  return { current, next, charges: chargesFor(core, current, next) };
}

/**
 * Applies a limits change. A change that incurs charges needs `acceptCharges`, else it is the
 * 402 `accept charges` with the quote under `data.limits` and nothing is stored.
 */
export function setLimits(
  core: Core,
  accountId: string,
  input: Record<string, unknown>,
  opts: { acceptCharges: boolean; mode?: LimitsMode },
): LimitsRecord & { charges: Record<string, ChargeItem> } {
  return transaction(core.db, () => {
    const { next, charges } = quoteLimits(core, accountId, input, opts.mode);
    if (Object.keys(charges).length > 0 && !opts.acceptCharges) throw errors.acceptCharges({ limits: charges });
    const body = JSON.stringify(next);
    const previous = stored(core, accountId);
    const rev = nextRevision(previous?.rev, body);
    const now = Date.now();
    stmt(core.db, `INSERT INTO limits (account_id, doc, rev, created, modified) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(account_id) DO UPDATE SET doc = excluded.doc, rev = excluded.rev, modified = excluded.modified`,
      )
      .run(accountId, body, rev, now, now);
    return { data: { ...next, id: LIMITS_ID }, rev, charges };
  });
}

/**
 * Who may change an account's limits: its reseller, anyone acting on a direct customer of the
 * master account, or a super-duper admin. Everyone else gets the 403 with the reason kept.
 */
export function checkLimitsWriter(core: Core, requester: Actor, targetId: string): void {
  if (requester.isSuperduper) return;
  // Limits bring charges: a plain user may read them, only an admin may change them.
  if (!isAccountAdmin(core, requester)) throw errors.forbidden('changing limits needs an admin of the account');
  const provider = resellerAbove(core, getAccount(core, targetId));
  // Stryker disable next-line OptionalChaining: a database that answers requests has its master account
  if (provider && (provider.id === requester.accountId || provider.id === masterAccount(core)?.id)) return;
  throw errors.forbidden(LIMITS_FORBIDDEN_REASON);
}
