import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import type { Page, PageQuery } from '../../store/pages.js';
import { compileValidator } from '../../schema/validate.js';
import { unixMsToGregorian } from '../../util/time.js';
import { jobThreadOf, kickJobs } from '../../jobs/executor.js';
import { createJob, getAccountJob, jobDetailPieces, listJobs, type JobFilter, type JobRow, type JobStatus } from '../../jobs/store.js';
import { UNLIMITED_BODY, envelopeData, parseEnvelope } from '../../util/json.js';
import { jobSchema } from './schema.js';

const validateJob = compileValidator<{ numbers: string[]; resource_id: string; name?: string }>(jobSchema);

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

/**
 * Creates a job from a request body as it came (a 100,000-number body is 2 MB of JSON: tens of
 * milliseconds to parse, check and store): on the job thread when this process has one (the
 * server), so that the event loop answers other requests meanwhile. Answers the job's JSON text.
 */
export async function createJobFromBody(core: Core, accountId: string, authAccountId: string | undefined, body: Buffer): Promise<string> {
  const thread = jobThreadOf(core);
  const json = (await thread?.createJob({ accountId, authAccountId, body })) ?? jobFromBody(core, accountId, authAccountId, body);
  kickJobs(core);
  return json;
}

/**
 * Compiles the job's validator, for the job thread as soon as it starts. Compiled within the
 * thread's first 100,000-number job instead, it made that job's request take 60-63 ms of the
 * thread's CPU instead of 33-39, and 99-109 ms on the one core of `../shared/bench/jobs.mjs`
 * instead of 38-46.
 */
export function compileJobValidator(): void {
  validateJob.compile();
}

/** What `createJobFromBody` runs where it runs: the body parsed, the job checked and stored, its JSON text. */
export function jobFromBody(core: Core, accountId: string, authAccountId: string | undefined, body: Buffer): string {
  // a list of numbers as long as the body holds (the job's thread parses it, not the event loop)
  return JSON.stringify(createAccountJob(core, accountId, authAccountId, envelopeData(parseEnvelope(body, UNLIMITED_BODY).data)));
}

/** A job of the account with its per-number results (as JSON text in pieces, see jobDetailPieces), or 404. */
export function jobDetailOf(core: Core, accountId: string, id: string): Iterable<string> {
  return jobDetailPieces(core, getAccountJob(core, accountId, id));
}

/** The job statuses a listing may filter on. */
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'complete', 'failed'];

/**
 * An account's jobs with their counts (the jobs of every account when none is given): newest
 * first unless `descending` is false, in a time window, by status, paged by the job's integer key.
 * The API's `GET …/resources/jobs` and `tel jobs list` both list with it.
 */
export function listAccountJobs(core: Core, q: JobFilter & PageQuery<number> = {}): Page<JobRow, number> {
  if (q.status !== undefined && !JOB_STATUSES.includes(q.status)) {
    throw errors.invalidField('filter_status', 'enum', 'Value not found in enumerated list of values', { target: JOB_STATUSES, value: q.status });
  }
  return listJobs(core, { descending: true, ...q });
}
