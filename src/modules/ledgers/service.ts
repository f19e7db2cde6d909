import type { SQLInputValue } from 'node:sqlite';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { md5Hex } from '../../util/ids.js';
import { isObject } from '../../util/json.js';
import { nowGregorian, type TimeWindow } from '../../util/time.js';
import { getAccount, resellerIdOf } from '../accounts/service.js';
import { findUser, type Actor } from '../users/service.js';
import { modbId } from '../documents/modb.js';
import { ledgerSchema } from './schema.js';

/**
 * An account's ledgers as Kazoo's `cb_ledgers` keeps them: credits and debits its reseller (or a
 * super-duper admin) writes, each an entry of a source service, summed by service over a month and
 * in all. Amounts are kept in ten-thousandths of the currency (Kazoo's units) and answered in
 * currency (a debit negative).
 */

/** Kazoo's units in one currency unit (`kz_currency`). */
const UNITS_PER_DOLLAR = 10_000;
const toUnits = (dollars: number) => Math.round(Math.abs(dollars) * UNITS_PER_DOLLAR);
const toDollars = (units: number) => units / UNITS_PER_DOLLAR;

/** The ledgers an account may write to (Kazoo's `kz_ledgers` default `registered_ledgers`). */
export const DEFAULT_AVAILABLE_LEDGERS = [
  { name: 'per-minute-voip', friendly_name: 'Per Minute VoIP', markup_type: ['percentage'] },
  { name: 'services', friendly_name: 'Monthly Recurring Services', markup_type: [] },
  { name: 'payments', friendly_name: 'Payments', markup_type: [] },
  { name: 'rollovers', friendly_name: 'Monthly Rollover', markup_type: [] },
];

const validateLedger = compileValidator(ledgerSchema);

interface LedgerRow {
  id: string;
  account_id: string;
  service: string;
  ledger_type: 'credit' | 'debit';
  units: number;
  created: number;
  doc: string;
}

/** A ledger as Kazoo's `kz_ledger:public_json` answers it: its fields, the amount in currency (a debit negative). */
export function ledgerJson(r: LedgerRow): Record<string, unknown> {
  const doc = JSON.parse(r.doc) as Record<string, unknown>;
  return { ...doc, amount: (r.ledger_type === 'debit' ? -1 : 1) * toDollars(r.units), id: r.id };
}

/** Who writes a ledger, and the request it came in (Kazoo's `audit`). */
export interface LedgerWriter extends Actor {
  request: { id: string; client_ip?: string; method: string; path: string };
}

/** Kazoo's `audit` of a ledger: who wrote it, through which request. */
function auditOf(core: Core, w: LedgerWriter): Record<string, unknown> {
  const user = w.ownerId ? findUser(core, w.accountId, w.ownerId)?.doc : undefined;
  const audit: Record<string, unknown> = {
    crossbar_request: true,
    authentication: { type: 'x-auth-token', account_id: w.accountId, account_name: getAccount(core, w.accountId).name },
    request: w.request,
  };
  if (user) {
    const full = [user.first_name, user.last_name].filter((x) => typeof x === 'string' && x !== '').join(' ');
    audit.agent = { type: 'user', type_id: w.ownerId, account_id: w.accountId, first_name: user.first_name, last_name: user.last_name, full_name: full || user.username };
  }
  return audit;
}

/** Stores one ledger of an account (or the reseller's copy of an account's). */
function insertLedger(core: Core, accountId: string, type: 'credit' | 'debit', units: number, doc: Record<string, unknown>): LedgerRow {
  const now = Date.now();
  const hash = md5Hex(JSON.stringify({ source: doc.source, account: doc.account, usage: doc.usage, period: doc.period, type: 'ledger', owner: accountId }));
  const id = modbId(now, hash);
  const text = JSON.stringify(doc);
  const res = stmt(core.db, 'INSERT OR IGNORE INTO ledgers (id, account_id, service, ledger_type, units, created, doc) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(id, accountId, String((doc.source as Record<string, unknown>).service), type, units, now, text);
  // the same entry twice (same source, usage and period): Kazoo's document conflict
  if (res.changes === 0) throw errors.conflict();
  return { id, account_id: accountId, service: String((doc.source as Record<string, unknown>).service), ledger_type: type, units, created: now, doc: text };
}

/**
 * `PUT ledgers/credit` and `ledgers/debit`: an entry in the account's ledgers, written by its
 * reseller (the caller's account is the account's reseller) or a super-duper admin, else 403.
 * With `impactReseller` (Kazoo's `impact_reseller`) the reseller's ledgers get the same entry and
 * both are answered with what each account then has.
 */
export function writeLedger(
  core: Core,
  writer: LedgerWriter,
  accountId: string,
  type: 'credit' | 'debit',
  input: Record<string, unknown>,
  impactReseller = false,
): Record<string, unknown> {
  const account = getAccount(core, accountId);
  const reseller = resellerIdOf(core, account);
  if (!writer.isSuperduper && (reseller !== writer.accountId || reseller === accountId)) {
    throw errors.forbidden("ledgers are credited and debited by the account's reseller (or a super-duper admin)");
  }
  throwIfErrors(validateLedger.check(input));
  const { id: _id, _read_only: _ro, amount: _a, account: _acc, ...fields } = input;
  const amount = typeof input.amount === 'number' ? input.amount : 0;
  const period = isObject(fields.period) ? fields.period : {};
  const doc: Record<string, unknown> = {
    ...fields,
    account: { id: account.id, name: account.name },
    period: { ...period, start: typeof period.start === 'number' ? period.start : nowGregorian() },
    metadata: isObject(fields.metadata) ? fields.metadata : {},
    executor: { trigger: 'crossbar', module: 'cb_ledgers' },
    audit: auditOf(core, writer),
  };
  const units = toUnits(amount);
  return transaction(core.db, () => {
    const own = insertLedger(core, accountId, type, units, doc);
    if (!impactReseller || reseller === accountId) return ledgerJson(own);
    const copy = insertLedger(core, reseller, type, units, doc);
    const answer = (id: string, r: LedgerRow) => ({ ledger: ledgerJson(r), available_dollars: ledgersTotal(core, id), is_reseller: getAccount(core, id).reseller });
    return { [accountId]: answer(accountId, own), [reseller]: answer(reseller, copy) };
  });
}

/** `GET ledgers/total`: every ledger of the account, in currency. */
export function ledgersTotal(core: Core, accountId: string): number {
  const r = stmt(core.db, "SELECT COALESCE(SUM(CASE ledger_type WHEN 'debit' THEN -units ELSE units END), 0) AS units FROM ledgers WHERE account_id = ?").get(accountId) as { units: number };
  return toDollars(r.units);
}

/** What a summary reads of a ledger: its service, signed units, usage and the account it is about. */
interface SummedRow {
  account_id: string;
  service: string;
  /** units, negative for a debit */
  signed: number;
  usage_type: unknown;
  usage_unit: unknown;
  quantity: unknown;
  about_id: string | null;
  about_name: unknown;
}

/** Sums of ledger rows by service, as Kazoo's `list_by_timestamp` reduce makes them (amounts in currency). */
function byService(rows: SummedRow[]): Record<string, Record<string, unknown>> {
  const out: Record<string, { amount: number; usage: Record<string, unknown> }> = {};
  for (const r of rows) {
    const s = (out[r.service] ??= { amount: 0, usage: { type: r.usage_type ?? undefined, quantity: 0, unit: r.usage_unit ?? undefined } });
    s.amount += r.signed;
    s.usage.quantity = Number(s.usage.quantity) + (typeof r.quantity === 'number' ? r.quantity : 0);
  }
  return Object.fromEntries(Object.entries(out).map(([service, s]) => [service, { amount: toDollars(s.amount), usage: s.usage }]));
}

/** The account's ledgers of a window, in order, as a summary sums them (all of them; the fields read by SQLite, no document parsed here). */
function rowsIn(core: Core, accountId: string, w: Required<TimeWindow>): SummedRow[] {
  return stmt(
    core.db,
    `SELECT account_id, service, CASE ledger_type WHEN 'debit' THEN -units ELSE units END AS signed,
       json_extract(doc, '$.usage.type') AS usage_type, json_extract(doc, '$.usage.unit') AS usage_unit, json_extract(doc, '$.usage.quantity') AS quantity,
       json_extract(doc, '$.account.id') AS about_id, json_extract(doc, '$.account.name') AS about_name
     FROM ledgers WHERE account_id = ? AND created BETWEEN ? AND ? ORDER BY created, id`,
  ).all(accountId, w.createdFrom, w.createdTo) as unknown as SummedRow[];
}

/** `GET ledgers`: the account's ledgers of the window summed by service (`{service: {amount, usage}}`). */
export function ledgersSummary(core: Core, accountId: string, w: Required<TimeWindow>): Record<string, unknown> {
  getAccount(core, accountId);
  return byService(rowsIn(core, accountId, w));
}

/**
 * `GET ledgers/summary/{YYYYMM}`: a month's ledgers summed by service (`summary`), and by the
 * account each is about (`breakdown`: a reseller's copies of its accounts' entries among them).
 */
export function monthSummary(core: Core, accountId: string, month: string): Record<string, unknown> {
  getAccount(core, accountId);
  const m = /^(\d{4})(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw errors.badIdentifier(month);
  const from = Date.UTC(Number(m[1]), Number(m[2]) - 1, 1);
  const to = Date.UTC(Number(m[1]), Number(m[2]), 1) - 1;
  const rows = rowsIn(core, accountId, { createdFrom: from, createdTo: to });
  const accounts = new Map<string, { name: unknown; rows: SummedRow[] }>();
  for (const r of rows) {
    const key = r.about_id ?? r.account_id;
    const entry = accounts.get(key) ?? { name: r.about_name ?? undefined, rows: [] };
    entry.rows.push(r);
    accounts.set(key, entry);
  }
  const breakdown = [...accounts].map(([id, a]) => ({
    account: { id, name: a.name },
    ledgers: byService(a.rows),
    total: toDollars(a.rows.reduce((t, r) => t + r.signed, 0)),
  }));
  return { summary: byService(rows), breakdown };
}

/** A page of the account's ledgers of one service in a window, newest first. */
export function listLedgers(core: Core, accountId: string, service: string, q: Required<TimeWindow> & PageQuery<CompoundKey>): Page<LedgerRow, CompoundKey> {
  const args: SQLInputValue[] = [accountId, service, q.createdFrom, q.createdTo];
  return readKeysetPage<LedgerRow>(
    core.db,
    { select: 'SELECT * FROM ledgers', where: ['account_id = ?', 'service = ?', 'created BETWEEN ? AND ?'], args, order: ['created', 'id'], descending: true, keyOf: (r) => [r.created, r.id] },
    q,
  );
}

/** `GET ledgers/{service}/{id}`: one ledger of the account; another service's is Kazoo's 404. */
export function getLedger(core: Core, accountId: string, service: string, id: string): Record<string, unknown> {
  const r = stmt(core.db, 'SELECT * FROM ledgers WHERE id = ? AND account_id = ?').get(id, accountId) as LedgerRow | undefined;
  if (!r || r.service !== service) throw errors.badIdentifier(id);
  return ledgerJson(r);
}

/** `GET ledgers/available`: the ledgers the account may have (`ledgers` `registered_ledgers`). */
export function availableLedgers(core: Core, accountId: string): unknown {
  return core.config.globalValue(accountId, 'ledgers', 'registered_ledgers', DEFAULT_AVAILABLE_LEDGERS);
}
