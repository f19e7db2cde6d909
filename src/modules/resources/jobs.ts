import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import type { Reply } from '../../http/router.js';
import { pageSizeOf } from '../../http/paging.js';
import { compileValidator } from '../../schema/validate.js';
import { gregorianToUnixMs, unixMsToGregorian } from '../../util/time.js';
import { kickJobs } from '../../jobs/executor.js';
import { createJob, getAccountJob, jobDetail, jobSummary, queryJobs, type JobRow, type JobStatus } from '../../jobs/store.js';
import { jobSchema } from './schema.js';

const validateJob = compileValidator<{ numbers: string[]; resource_id: string; name?: string }>(jobSchema);

const STATUSES: JobStatus[] = ['pending', 'running', 'complete', 'failed'];

/** What `PUT …/resources/jobs` answers at once: the pending job, no results yet. */
export function createdJobJson(job: JobRow, numbers: string[]): Record<string, unknown> {
  return {
    id: job.id,
    resource_id: job.resource_id,
    ...(job.name ? { name: job.name } : {}),
    numbers,
    status: job.status,
    successes: {},
    errors: {},
    timestamp: unixMsToGregorian(job.created),
  };
}

/** Validates a job request and stores it pending; this process's executor (if serving) starts at once. */
export function createAccountJob(core: Core, accountId: string, authAccountId: string | undefined, input: Record<string, unknown>) {
  const body = validateJob(input);
  const job = createJob(core, { accountId, authAccountId, resourceId: body.resource_id, name: body.name, numbers: body.numbers });
  kickJobs(core);
  return createdJobJson(job, body.numbers);
}

/** A job of the account with its per-number results, or 404. */
export function jobDetailOf(core: Core, accountId: string, id: string): Record<string, unknown> {
  return jobDetail(core, getAccountJob(core, accountId, id));
}

function gregorianParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw errors.invalidField(name, 'type', 'Value did not match type(s): integer', { target: 'integer', value: raw });
  }
  return n;
}

/**
 * `GET …/resources/jobs`: summaries with counts, newest first as Kazoo's time-ranged views
 * (`ascending=true` or `descending=false` flips),
 * `created_from` / `created_to` in Gregorian seconds, `filter_status`, paged by the job's
 * integer key (`start_key` / `next_start_key`).
 */
export function listAccountJobs(core: Core, accountId: string, query: URLSearchParams): Reply {
  const from = gregorianParam(query, 'created_from');
  const to = gregorianParam(query, 'created_to');
  if (from !== undefined && to !== undefined && to < from) {
    throw errors.invalidField('created_from', 'date_range', 'created_from is after created_to', { cause: from, target: to });
  }
  const status = query.get('filter_status') ?? undefined;
  if (status !== undefined && !STATUSES.includes(status as JobStatus)) {
    throw errors.invalidField('filter_status', 'enum', 'Value not found in enumerated list of values', { target: STATUSES, value: status });
  }
  const startRaw = query.get('start_key');
  const startSeq = startRaw === null || startRaw === '' ? undefined : Number(startRaw);
  if (startSeq !== undefined && !Number.isInteger(startSeq)) {
    throw errors.invalidField('start_key', 'type', 'Value did not match type(s): integer', { target: 'integer', value: startRaw });
  }
  const descending = !(query.get('ascending') === 'true' || query.get('descending') === 'false');
  const size = pageSizeOf(query);
  const rows = queryJobs(core, {
    accountId,
    createdFrom: from === undefined ? undefined : gregorianToUnixMs(from),
    createdTo: to === undefined ? undefined : gregorianToUnixMs(to) + 999,
    status: status as JobStatus | undefined,
    startSeq,
    descending,
    limit: size === undefined ? undefined : size + 1,
  });
  const page = size === undefined ? rows : rows.slice(0, size);
  const extras: Reply['extras'] = { page_size: page.length };
  if (size !== undefined) {
    if (page.length) extras.start_key = page[0].seq;
    if (rows.length > size) extras.next_start_key = rows[size].seq;
  }
  return { data: page.map(jobSummary), extras };
}
