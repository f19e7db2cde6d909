import type { Core } from '../../core-type.js';
import { stmt, type Db } from '../../store/db.js';
import type { EnvelopeExtras } from '../../http/envelope.js';
import { pageSizeOf } from '../../http/paging.js';
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
}

/** A number as `GET /v2/accounts/{id}/phone_numbers` shows it (Kazoo's listing entry). */
export function numberJson(r: NumberRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    assigned_to: r.account_id,
    created: unixMsToGregorian(r.created),
    features: [],
    state: r.state,
    updated: unixMsToGregorian(r.modified),
  };
  if (r.resource_id) out.resource_id = r.resource_id;
  if (r.job_id) out.job_id = r.job_id;
  return out;
}

/** Adds numbers to an account; answers false for a number the inventory already holds. */
export type NumberAdder = (number: string, accountId: string, resourceId: string, jobId: string, now: number) => boolean;

const adders = new WeakMap<Db, NumberAdder>();

/**
 * The hot-path insert of bulk jobs, prepared once per connection. The caller holds the
 * transaction; a number already present (in any account) is left alone and reported.
 */
export function numberAdder(db: Db): NumberAdder {
  let add = adders.get(db);
  if (!add) {
    const stmt = db.prepare(
      `INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified)
       VALUES (?, ?, ?, '${JOB_NUMBER_STATE}', ?, ?, ?) ON CONFLICT(number) DO NOTHING`,
    );
    add = (number, accountId, resourceId, jobId, now) => stmt.run(number, accountId, resourceId, jobId, now, now).changes > 0;
    adders.set(db, add);
  }
  return add;
}

/**
 * A page of an account's numbers in E.164 order, keyed by number as Kazoo answers them. The
 * paging key is the number itself (`start_key` / `next_start_key`); `paginate=false` gives all.
 */
export function listNumbers(
  core: Core,
  accountId: string,
  query: URLSearchParams,
): { numbers: Record<string, Record<string, unknown>>; extras: EnvelopeExtras } {
  const size = pageSizeOf(query);
  // Keys are E.164, so a leading space is a `+` the client did not URL-encode.
  const start = (query.get('start_key') ?? '').replace(/^ /, '+');
  const state = query.get('filter_state');
  const where = `account_id = ? AND number >= ?${state ? ' AND state = ?' : ''}`;
  const args: (string | number)[] = [accountId, start];
  if (state) args.push(state);
  const sql = `SELECT * FROM phone_numbers WHERE ${where} ORDER BY number${size === undefined ? '' : ' LIMIT ?'}`;
  if (size !== undefined) args.push(size + 1);
  const rows = stmt(core.db, sql).all(...args) as unknown as NumberRow[];
  const page = size === undefined ? rows : rows.slice(0, size);
  const numbers: Record<string, Record<string, unknown>> = {};
  for (const r of page) numbers[r.number] = numberJson(r);
  const extras: EnvelopeExtras = { page_size: page.length };
  if (size !== undefined) {
    if (page.length) extras.start_key = page[0].number;
    if (rows.length > size) extras.next_start_key = rows[size].number;
  }
  return { numbers, extras };
}
