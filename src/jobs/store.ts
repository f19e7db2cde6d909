import { stmt, transaction } from '../store/db.js';
import type { Core } from '../core-type.js';
import { errors } from '../errors.js';
import { newId } from '../util/ids.js';
import { unixMsToGregorian, type TimeWindow } from '../util/time.js';
import { keysetPage, pageLimit, type Page, type PageQuery } from '../store/pages.js';
import { numberJsonText, type NumberRow } from '../modules/numbers/service.js';

/** Job statuses: `pending` → `running` → `complete` (or `failed`). */
export type JobStatus = 'pending' | 'running' | 'complete' | 'failed';

/** A row of `resource_jobs`: what a watcher reads without touching per-number results. */
export interface JobRow {
  seq: number;
  id: string;
  account_id: string;
  auth_account_id: string | null;
  resource_id: string;
  name: string | null;
  status: JobStatus;
  total: number;
  processed: number;
  successes: number;
  failures: number;
  runner: string | null;
  recoveries: number;
  error: string | null;
  created: number;
  started: number | null;
  modified: number;
}

/** The columns of a job row without the (possibly large) list of numbers. */
export const JOB_COLUMNS =
  'seq, id, account_id, auth_account_id, resource_id, name, status, total, processed, successes, failures, runner, recoveries, error, created, started, modified';

/** True once a job has reached a final status. */
export function isFinished(status: JobStatus): boolean {
  return status === 'complete' || status === 'failed';
}

/** A new job id in Kazoo's form: the UTC year and month, a dash, random hex. */
export function newJobId(nowMs: number = Date.now()): string {
  const d = new Date(nowMs);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}-${newId()}`;
}

/** What a new job needs. */
export interface NewJob {
  accountId: string;
  authAccountId?: string;
  resourceId: string;
  name?: string;
  numbers: string[];
}

/** Stores a pending job; an executor (a server's, or the CLI's) picks it up. */
export function createJob(core: Core, job: NewJob): JobRow {
  const now = Date.now();
  const id = newJobId(now);
  // Read back in the same transaction: the job as created (pending), even if a server in
  // another process takes it up the moment it is committed.
  return transaction(core.db, () => {
    stmt(core.db, `INSERT INTO resource_jobs (id, account_id, auth_account_id, resource_id, name, status, numbers, total, created, modified)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
      )
      .run(id, job.accountId, job.authAccountId ?? null, job.resourceId, job.name ?? null, JSON.stringify(job.numbers), job.numbers.length, now, now);
    return findJobById(core, id)!;
  });
}

/** A job by id, in any account. */
export function findJobById(core: Core, id: string): JobRow | undefined {
  return stmt(core.db, `SELECT ${JOB_COLUMNS} FROM resource_jobs WHERE id = ?`).get(id) as JobRow | undefined;
}

/** A job by its ordered key. */
export function findJobBySeq(core: Core, seq: number): JobRow | undefined {
  return stmt(core.db, `SELECT ${JOB_COLUMNS} FROM resource_jobs WHERE seq = ?`).get(seq) as JobRow | undefined;
}

/** A job of an account, or the 404 `bad_identifier` (also for ids not of the `YYYYMM-` form). */
export function getAccountJob(core: Core, accountId: string, id: string): JobRow {
  const job = /^\d{6}-[0-9a-f]+$/.test(id) ? findJobById(core, id) : undefined;
  if (!job || job.account_id !== accountId) throw errors.badIdentifier(id);
  return job;
}

/** The numbers of a job as they were given. */
export function jobNumbers(core: Core, seq: number): string[] {
  const r = stmt(core.db, 'SELECT numbers FROM resource_jobs WHERE seq = ?').get(seq) as { numbers: string } | undefined;
  return r ? (JSON.parse(r.numbers) as string[]) : [];
}

/** A job as the listing shows it: counts, not per-number results. */
export function jobSummary(job: JobRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: job.id,
    status: job.status,
    timestamp: unixMsToGregorian(job.created),
    resource_id: job.resource_id,
    total: job.total,
    successes: job.successes,
    failures: job.failures,
    modified: unixMsToGregorian(job.modified),
  };
  if (job.name) out.name = job.name;
  return out;
}

/** A job's per-number results in order, each success with the number's inventory row (if it is still there). */
const RESULTS_SQL = `SELECT r.idx, r.number AS result_number, r.reason, r.message, p.*
  FROM resource_job_results r LEFT JOIN phone_numbers p ON r.reason IS NULL AND p.number = r.number
  WHERE r.job_seq = ? ORDER BY r.idx`;

interface ResultRow extends Partial<NumberRow> {
  idx: number;
  result_number: string | null;
  reason: string | null;
  message: string | null;
}

/**
 * A job with its per-number results, as the API answers it (the text of `jobDetailJson`, read).
 */
export function jobDetail(core: Core, job: JobRow): Record<string, unknown> {
  return JSON.parse(jobDetailJson(core, job)) as Record<string, unknown>;
}

/**
 * A job with its per-number results, as JSON text: `successes` keyed by E.164 number (the number
 * as the inventory shows it, or `{"state":"released"}` once it left) and `errors` keyed by the
 * number as given (`{reason, message}`). Written as the rows are read: a job of 100,000 numbers
 * answers some 25 MB, which built as objects and then serialised held the server for seconds.
 * The list of numbers goes in as stored; each success is written from its row (the inventory's
 * numbers are `+…`, never a key an object would reorder, and each is added once); the errors (a
 * few, usually) go through an object, as their keys are the numbers as given (any text, repeats).
 */
export function jobDetailJson(core: Core, job: JobRow): string {
  const stored = (stmt(core.db, 'SELECT numbers FROM resource_jobs WHERE seq = ?').get(job.seq) as { numbers: string } | undefined)?.numbers ?? '[]';
  let numbers: string[] | undefined;
  let successes = '';
  const errs: Record<string, unknown> = {};
  for (const r of stmt(core.db, RESULTS_SQL).iterate(job.seq) as Iterable<ResultRow>) {
    if (r.reason === null) {
      const n = r.result_number!;
      successes += `${successes === '' ? '' : ','}${JSON.stringify(n)}:${r.number ? numberJsonText(r as NumberRow) : '{"state":"released"}'}`;
    } else {
      numbers ??= JSON.parse(stored) as string[];
      errs[numbers[r.idx]] = { reason: r.reason, ...(r.message ? { message: r.message } : {}) };
    }
  }
  let text =
    `{"id":${JSON.stringify(job.id)},"resource_id":${JSON.stringify(job.resource_id)},"numbers":${stored},` +
    `"status":${JSON.stringify(job.status)},"successes":{${successes}},"errors":${JSON.stringify(errs)},` +
    `"timestamp":${unixMsToGregorian(job.created)},"total":${job.total},"processed":${job.processed},"modified":${unixMsToGregorian(job.modified)}`;
  if (job.name) text += `,"name":${JSON.stringify(job.name)}`;
  if (job.error) text += `,"reason":${JSON.stringify(job.error)}`;
  return `${text}}`;
}

/** Which jobs a listing shows; times in unix ms, both ends included. */
export interface JobFilter extends TimeWindow {
  accountId?: string;
  status?: JobStatus;
  /** newest first (by the job's key) */
  descending?: boolean;
}

/** Jobs in key order (newest first when `descending`), filtered, one page keyed by `seq`. */
export function listJobs(core: Core, q: JobFilter & PageQuery<number> = {}): Page<JobRow, number> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (q.accountId) (where.push('account_id = ?'), args.push(q.accountId));
  if (q.createdFrom !== undefined) (where.push('created >= ?'), args.push(q.createdFrom));
  if (q.createdTo !== undefined) (where.push('created <= ?'), args.push(q.createdTo));
  if (q.status) (where.push('status = ?'), args.push(q.status));
  if (q.startKey !== undefined) (where.push(q.descending ? 'seq <= ?' : 'seq >= ?'), args.push(q.startKey));
  const sql = `SELECT ${JOB_COLUMNS} FROM resource_jobs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
    ORDER BY seq ${q.descending ? 'DESC' : 'ASC'} LIMIT ?`;
  const rows = core.db.prepare(sql).all(...args, pageLimit(q.pageSize)) as unknown as JobRow[];
  return keysetPage(rows, q, (r) => r.seq);
}

/** How many jobs are in each status (through the status index). */
export function jobCounts(core: Core): Record<JobStatus, number> {
  const out: Record<JobStatus, number> = { pending: 0, running: 0, complete: 0, failed: 0 };
  for (const r of stmt(core.db, 'SELECT status, count(*) AS n FROM resource_jobs GROUP BY status').all() as { status: JobStatus; n: number }[]) out[r.status] = r.n;
  return out;
}

/** The jobs running now, with their progress. */
export function runningJobs(core: Core): JobRow[] {
  return stmt(core.db, `SELECT ${JOB_COLUMNS} FROM resource_jobs WHERE status = 'running' ORDER BY seq`).all() as unknown as JobRow[];
}
