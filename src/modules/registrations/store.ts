import type { Core } from '../../core-type.js';
import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';

/**
 * Registrations, as Kazoo's registrar (ecallmgr_registrar) keeps them: one a SIP username of an
 * account, holding the fields `cb_registrations` answers, live until `expiresAt`. Reads leave the
 * lapsed ones out; the sweeper removes them (and notifies their deregistration).
 */

/** One stored registration. */
export interface Registration {
  accountId: string;
  /** the SIP username, lower case */
  username: string;
  deviceId: string;
  /** unix ms after which it has lapsed */
  expiresAt: number;
  /** the fields `GET …/registrations` answers */
  fields: Record<string, unknown>;
}

interface Row {
  account_id: string;
  username: string;
  device_id: string;
  expires_at: number;
  fields: string;
}

function fromRow(r: Row): Registration {
  return { accountId: r.account_id, username: r.username, deviceId: r.device_id, expiresAt: r.expires_at, fields: JSON.parse(r.fields) };
}

/** Stores a registration, replacing the username's earlier one. */
export function saveRegistration(core: Core, r: Registration): void {
  stmt(core.db, 'INSERT OR REPLACE INTO registrations (account_id, username, device_id, expires_at, fields) VALUES (?, ?, ?, ?, ?)').run(
    r.accountId,
    r.username,
    r.deviceId,
    r.expiresAt,
    JSON.stringify(r.fields),
  );
}

/** The live registration of a username, or undefined. */
export function findRegistration(core: Core, accountId: string, username: string, nowMs = Date.now()): Registration | undefined {
  const r = stmt(core.db, 'SELECT * FROM registrations WHERE account_id = ? AND username = ? AND expires_at > ?').get(accountId, username, nowMs) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** Removes a username's registration; true when there was one. */
export function removeRegistration(core: Core, accountId: string, username: string): boolean {
  return stmt(core.db, 'DELETE FROM registrations WHERE account_id = ? AND username = ?').run(accountId, username).changes > 0;
}

/** Removes every registration of an account (Kazoo's flush: no notification). */
export function removeAccountRegistrations(core: Core, accountId: string): void {
  stmt(core.db, 'DELETE FROM registrations WHERE account_id = ?').run(accountId);
}

/** Removes a device's registrations (a deleted device's). */
export function removeDeviceRegistrations(core: Core, accountId: string, deviceId: string): void {
  stmt(core.db, 'DELETE FROM registrations WHERE account_id = ? AND device_id = ?').run(accountId, deviceId);
}

/**
 * A page of an account's live registrations by username, keyed by `[username]` (every account's
 * when none is given: by account, then username, keyed by `[account_id, username]`).
 */
export function registrationsPage(core: Core, accountId: string | undefined, q: PageQuery<CompoundKey, Registration>, nowMs = Date.now()): Page<Registration, CompoundKey> {
  return readKeysetPage<Row, Registration>(
    core.db,
    {
      select: 'SELECT * FROM registrations',
      // `+`: the lapsed are filtered as the page is read in username order, never looked up by expiry
      where: accountId === undefined ? ['+expires_at > ?'] : ['account_id = ?', '+expires_at > ?'],
      args: accountId === undefined ? [nowMs] : [accountId, nowMs],
      order: accountId === undefined ? ['account_id', 'username'] : ['username'],
      keyOf: (r) => (accountId === undefined ? [r.account_id, r.username] : [r.username]),
      item: fromRow,
    },
    q,
  );
}

/** How many live registrations an account has (every account's when none is given). */
export function countRegistrations(core: Core, accountId: string | undefined, nowMs = Date.now()): number {
  const row = (
    accountId === undefined
      ? stmt(core.db, 'SELECT count(*) AS n FROM registrations WHERE expires_at > ?').get(nowMs)
      : stmt(core.db, 'SELECT count(*) AS n FROM registrations WHERE account_id = ? AND expires_at > ?').get(accountId, nowMs)
  ) as { n: number };
  return row.n;
}

/** The devices of an account with a live registration, by id. */
export function registeredDevices(core: Core, accountId: string, nowMs = Date.now()): string[] {
  const rows = stmt(core.db, 'SELECT DISTINCT device_id FROM registrations WHERE account_id = ? AND expires_at > ? ORDER BY device_id').all(accountId, nowMs) as { device_id: string }[];
  return rows.map((r) => r.device_id);
}

/** Whether any registration lapsed by `nowMs` (read through the expiry index). */
export function anyLapsed(core: Core, nowMs: number): boolean {
  return stmt(core.db, 'SELECT 1 FROM registrations WHERE expires_at <= ? LIMIT 1').get(nowMs) !== undefined;
}

/** Removes up to `limit` registrations that lapsed by `nowMs`, answering them (the sweeper notifies each). */
export function takeLapsed(core: Core, nowMs: number, limit: number): Registration[] {
  const rows = stmt(
    core.db,
    'DELETE FROM registrations WHERE rowid IN (SELECT rowid FROM registrations WHERE expires_at <= ? ORDER BY expires_at LIMIT ?) RETURNING *',
  ).all(nowMs, limit) as unknown as Row[];
  return rows.map(fromRow);
}
