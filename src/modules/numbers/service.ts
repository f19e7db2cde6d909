import type { Core } from '../../core-type.js';
import { stmt, type Db } from '../../store/db.js';
import { keysetPage, pageLimit, type Page, type PageQuery } from '../../store/pages.js';
import { unixMsToGregorian } from '../../util/time.js';

/** The state a number added by a bulk job starts in (Kazoo creates them reserved). */
export const JOB_NUMBER_STATE = 'reserved';

/** One row of the number inventory. */
export interface NumberRow {
  number: string;
  account_id: string;
  resource_id: string | null;
  state: string;
  job_id: string | null;
  created: number;
  modified: number;
  /** the number's own document (the fields its account set), JSON; null when none */
  doc?: string | null;
  /** the features its document turned on, JSON `{feature: settings}`; null when none */
  features?: string | null;
  /** what uses it (`callflow`) */
  used_by?: string | null;
  /** the pool it was bought from (the account the carrier offered it to) */
  pool_id?: string | null;
}

/** The names of the features a row has on, in their stored order. */
export function featureNames(r: NumberRow): string[] {
  return r.features ? Object.keys(JSON.parse(r.features) as Record<string, unknown>) : [];
}

/**
 * A number as `GET /v2/accounts/{id}/phone_numbers` shows it: the fields Kazoo's
 * `phone_numbers/crossbar_listing` view emits (with `features_available` when the listing
 * computed them for its caller), and tel's `resource_id` and `job_id` of a number a job added.
 */
export function numberJson(r: NumberRow, available?: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    assigned_to: r.account_id,
    created: unixMsToGregorian(r.created),
    features: featureNames(r),
    features_allowed: [],
    features_denied: [],
    state: r.state,
    updated: unixMsToGregorian(r.modified),
  };
  if (r.used_by) out.used_by = r.used_by;
  if (available) out.features_available = available;
  if (r.resource_id) out.resource_id = r.resource_id;
  if (r.job_id) out.job_id = r.job_id;
  return out;
}

/** The JSON text of `numberJson(r, available)`, written directly (a job's detail writes one per number). */
export function numberJsonText(r: NumberRow, available?: readonly string[]): string {
  let text = `{"assigned_to":${JSON.stringify(r.account_id)},"created":${unixMsToGregorian(r.created)},"features":${r.features ? JSON.stringify(featureNames(r)) : '[]'},"features_allowed":[],"features_denied":[],"state":${JSON.stringify(r.state)},"updated":${unixMsToGregorian(r.modified)}`;
  if (r.used_by) text += `,"used_by":${JSON.stringify(r.used_by)}`;
  if (available) text += `,"features_available":${JSON.stringify(available)}`;
  if (r.resource_id) text += `,"resource_id":${JSON.stringify(r.resource_id)}`;
  if (r.job_id) text += `,"job_id":${JSON.stringify(r.job_id)}`;
  return `${text}}`;
}

/** Who the numbers a bulk job adds go to, and when. */
export interface NumbersOwner {
  accountId: string;
  resourceId: string;
  jobId: string;
  now: number;
}

/**
 * The hot path of bulk jobs, a batch at a time (the caller holds the transaction): which of the
 * numbers the inventory holds (in any account), and the others added to an account — each one
 * statement over the batch as a JSON array. A job of 100,000 numbers took 330 ms of CPU with an
 * insert per number, 215 ms so (in-process, one core, other work beside).
 */
export function numbersPresent(db: Db, numbers: readonly string[]): Set<string> {
  const rows = stmt(db, 'SELECT number FROM phone_numbers WHERE number IN (SELECT value FROM json_each(?))').all(JSON.stringify(numbers)) as { number: string }[];
  return new Set(rows.map((r) => r.number));
}

/**
 * Adds numbers the inventory does not hold (see numbersPresent) to an account; those the carrier's
 * pool offered leave it, as Kazoo creates a number that was available.
 */
export function insertNumbers(db: Db, numbers: readonly string[], owner: NumbersOwner): void {
  const list = JSON.stringify(numbers);
  stmt(
    db,
    `INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified)
     SELECT value, ?, ?, '${JOB_NUMBER_STATE}', ?, ?, ? FROM json_each(?)`,
  ).run(owner.accountId, owner.resourceId, owner.jobId, owner.now, owner.now, list);
  stmt(db, 'DELETE FROM number_pool WHERE number IN (SELECT value FROM json_each(?))').run(list);
}

/** The columns a listing row is made of (a number's document is not one of them). */
const LISTED_COLUMNS = 'number, account_id, resource_id, state, job_id, created, modified, features, used_by, pool_id';

/**
 * A page of an account's numbers in E.164 order, keyed by the number itself, optionally in some
 * states (`reserved`, `in_service`, …).
 */
export function listNumbers(core: Core, accountId: string, q: PageQuery<string, NumberRow> & { states?: readonly string[] } = {}): Page<NumberRow, string> {
  const where = `account_id = ? AND number >= ?${q.states ? ' AND state IN (SELECT value FROM json_each(?))' : ''}`;
  const args: (string | number)[] = [accountId, q.startKey ?? ''];
  if (q.states) args.push(JSON.stringify(q.states));
  const rows = stmt(core.db, `SELECT ${LISTED_COLUMNS} FROM phone_numbers WHERE ${where} ORDER BY number LIMIT ?`).all(...args, pageLimit(q)) as unknown as NumberRow[];
  return keysetPage(rows, q, (r) => r.number);
}
