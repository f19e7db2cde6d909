import { stmt, transaction } from '../store/db.js';
import type { Core } from '../core-type.js';
import { errors } from '../errors.js';
import { newId } from '../util/ids.js';
import { unixMsToGregorian, type TimeWindow } from '../util/time.js';
import { wholeDoc } from '../util/doc-filter.js';
import { keysetPage, pageLimit, type Page, type PageQuery } from '../store/pages.js';
import { numberJsonText, type NumberRow } from '../modules/numbers/service.js';
import { toE164 } from '../modules/numbers/normalize.js';

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

/**
 * The numbers of the job a connection created last, for its run, which nearly always follows at
 * once on the same connection (the server's job thread, `tel jobs create`): 100,000 numbers are
 * 2 MB of JSON not parsed again.
 */
const justCreated = new WeakMap<Core['db'], { seq: number; numbers: string[] }>();

/** Stores a pending job; an executor (a server's, or the CLI's) picks it up. */
export function createJob(core: Core, job: NewJob): JobRow {
  const now = Date.now();
  const id = newJobId(now);
  // Read back in the same transaction: the job as created (pending), even if a server in
  // another process takes it up the moment it is committed.
  const created = transaction(core.db, () => {
    const { lastInsertRowid } = stmt(core.db, `INSERT INTO resource_jobs (id, account_id, auth_account_id, resource_id, name, status, total, created, modified)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(id, job.accountId, job.authAccountId ?? null, job.resourceId, job.name ?? null, job.numbers.length, now, now);
    stmt(core.db, 'INSERT INTO resource_job_numbers (job_seq, numbers) VALUES (?, ?)').run(lastInsertRowid, JSON.stringify(job.numbers));
    return findJobById(core, id)!;
  });
  // Stryker disable next-line ObjectLiteral: only a cache; without it the run parses the stored numbers
  justCreated.set(core.db, { seq: created.seq, numbers: job.numbers });
  return created;
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
  // Stryker disable next-line Regex: an id the pattern's anchors refuse is found by no lookup either
  const job = /^\d{6}-[0-9a-f]+$/.test(id) ? findJobById(core, id) : undefined;
  if (!job || job.account_id !== accountId) throw errors.badIdentifier(id);
  return job;
}

/** The numbers of a job as they were given. */
export function jobNumbers(core: Core, seq: number): string[] {
  const kept = justCreated.get(core.db);
  // Stryker disable next-line ConditionalExpression,CallExpression: only a cache; kept longer, it answers its own job's numbers only
  if (kept) justCreated.delete(core.db);
  // Stryker disable next-line ConditionalExpression: only a cache; without it the run parses the stored numbers
  if (kept?.seq === seq) return kept.numbers;
  return JSON.parse(storedNumbers(core, seq)) as string[];
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

/** A job as the jobs listing's filters see it: as listed, with Kazoo's private fields (its `resource_job` documents'). */
export function jobFilterDoc(job: JobRow): Record<string, unknown> {
  return wholeDoc(jobSummary(job), { id: job.id, type: 'resource_job', accountId: job.account_id, created: job.created, modified: job.modified });
}

/** Results read a chunk at a time: a range of a job's positions (its results table's key). */
const RESULT_CHUNK = 1000;

/**
 * Successes written a range at a time in a job's detail: each number answers its inventory
 * document (some 290 characters), and a range of RESULT_CHUNK took the event loop 5-15 ms to
 * make (32 with a collection), which a GET arriving meanwhile waited for
 * (`../shared/bench/jobs.mjs`, whose rounds end by reading the detail of 100,000 numbers).
 */
const SUCCESS_RANGE = 200;

/**
 * The inventory rows of a list of numbers (a JSON array): a job's successes, a range at a time.
 * A job records only its errors (one write per number fewer): a position it processed without an
 * error is a success, of the number given there as normalised.
 */
const INVENTORY_SQL = 'SELECT p.* FROM json_each(?) j JOIN phone_numbers p ON p.number = j.value';

/** The positions of a job's errors in a range (rows of successes written by older versions left out). */
const ERROR_POSITIONS_SQL = `SELECT idx FROM resource_job_results
  WHERE job_seq = ? AND idx >= ? AND idx < ? AND reason IS NOT NULL`;

/** A job's errors in a range of positions. */
const ERRORS_SQL = `SELECT idx, reason, message FROM resource_job_results
  WHERE job_seq = ? AND idx >= ? AND idx < ? AND reason IS NOT NULL ORDER BY idx`;

interface ErrorRow {
  idx: number;
  reason: string;
  message: string | null;
}

/** The ranges of positions a job's results are read in, each `size` long (up to `end`). */
function* resultRanges(job: JobRow, end = job.total, size = RESULT_CHUNK): Generator<[number, number]> {
  // Stryker disable next-line EqualityOperator: a last range from `end` to `end` holds no result
  for (let from = 0; from < end; from += size) yield [from, Math.min(end, from + size)];
}

/** The numbers of a job as stored: the JSON text of the list given. */
function storedNumbers(core: Core, seq: number): string {
  return (stmt(core.db, 'SELECT numbers FROM resource_job_numbers WHERE job_seq = ?').get(seq) as { numbers: string } | undefined)?.numbers ?? '[]';
}

/** One error of a job: the number as given, and why it was not added. */
export interface JobError {
  number: string;
  reason: string;
  message: string | null;
}

/**
 * A job's errors in the order the numbers were given, a number given twice counting once (with
 * its last error, as keys of an object), read a range of positions at a time: at most `limit`.
 */
export function* jobErrors(core: Core, job: JobRow, limit = Infinity): Generator<JobError[]> {
  let given: ((idx: number) => string) | undefined;
  const seen = new Map<string, JobError>();
  for (const [from, to] of resultRanges(job)) {
    const rows = stmt(core.db, ERRORS_SQL).all(job.seq, from, to) as unknown as ErrorRow[];
    const fresh: JobError[] = [];
    for (const r of rows) {
      given ??= stringsOf(storedNumbers(core, job.seq));
      const e: JobError = { number: given(r.idx), reason: r.reason, message: r.message };
      const before = seen.get(e.number);
      if (before) Object.assign(before, e);
      else if (seen.size < limit) (seen.set(e.number, e), fresh.push(e));
    }
    yield fresh;
    if (seen.size >= limit) return;
  }
}

/**
 * The elements of a JSON array of strings (a job's numbers as stored), read in increasing
 * positions: each is found from the last one read and parsed alone, so the errors of a job of
 * 100,000 numbers never parse the whole list at once (some 20 ms of the event loop).
 */
function stringsOf(text: string): (idx: number) => string {
  let at = text.indexOf('"');
  let index = 0;
  /** the position of the quote that closes the string opening at `open` */
  const closing = (open: number) => {
    for (let i = open + 1; ; ) {
      const quote = text.indexOf('"', i);
      let slashes = 0;
      while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
      if (slashes % 2 === 0) return quote;
      i = quote + 1;
    }
  };
  return (idx) => {
    for (; index < idx; index++) at = text.indexOf('"', closing(at) + 1);
    const end = closing(at);
    const value = JSON.parse(text.slice(at, end + 1)) as string;
    index = idx + 1;
    at = text.indexOf('"', end + 1);
    return value;
  };
}

/** A job's detail as an object (the text of `jobDetailPieces`, read): for tests and small jobs. */
export function jobDetail(core: Core, job: JobRow): Record<string, unknown> {
  return JSON.parse([...jobDetailPieces(core, job)].join('')) as Record<string, unknown>;
}

/** Characters of a job's list of numbers written at a time. */
const TEXT_PIECE = 256 * 1024;

/**
 * A long text (a job's list of numbers: 2 MB for 100,000) in pieces, for an answer written a piece
 * at a time: a created job's echo, written (and hashed for its revision) in one go, held the event
 * loop 8-18 ms; a piece takes well under a millisecond.
 */
export function* textPieces(text: string, size = TEXT_PIECE): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/**
 * The successes of a range of a job's positions as members of a JSON object (no comma before the
 * first). A function of its own, not the body of jobDetailPieces' loop: V8 optimised the generator
 * with all of this inlined in 28-36 ms of the event loop, during the first big detail it answered,
 * which held a GET as long (`../shared/bench/jobs.mjs`).
 */
function successesText(core: Core, job: JobRow, given: (idx: number) => string, from: number, to: number): string {
  const failed = new Set((stmt(core.db, ERROR_POSITIONS_SQL).all(job.seq, from, to) as { idx: number }[]).map((r) => r.idx));
  const added: string[] = [];
  for (let idx = from; idx < to; idx++) {
    const number = failed.has(idx) ? undefined : toE164(given(idx));
    if (number) added.push(number);
  }
  const rows = new Map((stmt(core.db, INVENTORY_SQL).all(JSON.stringify(added)) as unknown as NumberRow[]).map((r) => [r.number, r]));
  let text = '';
  for (const number of added) {
    const row = rows.get(number);
    text += `${text === '' ? '' : ','}${JSON.stringify(number)}:${row ? numberJsonText(row) : '{"state":"released"}'}`;
  }
  return text;
}

/**
 * A job with its per-number results, as JSON text in pieces (see StreamedData): `successes`
 * keyed by E.164 number (the number as the inventory shows it, or `{"state":"released"}` once it
 * left) and `errors` keyed by the number as given (`{reason, message}`). A job of 100,000 numbers
 * answers some 25 MB: its results are read and written a range of positions at a time, so no
 * piece takes long to make and memory holds one range (with the list of numbers, and the errors,
 * which a number given twice must count once). The list of numbers goes in as stored; each
 * success (a processed position without an error) is the number given there, normalised, written
 * from its inventory row (each added once, so no key repeats); an error given twice keeps its
 * first place and its last value, as an object's key does.
 */
export function* jobDetailPieces(core: Core, job: JobRow): Generator<string> {
  const stored = storedNumbers(core, job.seq);
  yield `{"id":${JSON.stringify(job.id)},"resource_id":${JSON.stringify(job.resource_id)},"numbers":`;
  yield* textPieces(stored);
  yield `,"status":${JSON.stringify(job.status)},"successes":{`;
  const given = stringsOf(stored);
  let first = true;
  for (const [from, to] of resultRanges(job, job.processed, SUCCESS_RANGE)) {
    const text = successesText(core, job, given, from, to);
    yield first || text === '' ? text : `,${text}`;
    if (text !== '') first = false;
  }
  // errors are known whole only at the end (a later duplicate changes an earlier one's value)
  const errs: JobError[] = [];
  for (const chunk of jobErrors(core, job)) {
    errs.push(...chunk);
    yield '';
  }
  yield '},"errors":{';
  for (let i = 0; i < errs.length; i += RESULT_CHUNK) {
    yield errs
      .slice(i, i + RESULT_CHUNK)
      // Stryker disable next-line ArithmeticOperator: i - j is 0 at the first error too, and never after (j < RESULT_CHUNK <= i)
      .map((e, j) => `${i + j === 0 ? '' : ','}${JSON.stringify(e.number)}:${JSON.stringify({ reason: e.reason, ...(e.message ? { message: e.message } : {}) })}`)
      .join('');
  }
  let text =
    `},"timestamp":${unixMsToGregorian(job.created)},"total":${job.total},"processed":${job.processed},"modified":${unixMsToGregorian(job.modified)}`;
  if (job.name) text += `,"name":${JSON.stringify(job.name)}`;
  if (job.error) text += `,"reason":${JSON.stringify(job.error)}`;
  yield `${text}}`;
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
  const rows = stmt(core.db, sql).all(...args, pageLimit(q)) as unknown as JobRow[];
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
