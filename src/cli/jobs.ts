import type { Command } from 'commander';
import type { Core } from '../core-type.js';
import { masterAccount } from '../modules/accounts/service.js';
import { createAccountJob, JOB_STATUSES, listAccountJobs } from '../modules/resources/jobs.js';
import { followJob, runJobHere, runnableJobs } from '../jobs/follow.js';
import { ProgressReporter, progressLine } from '../jobs/progress.js';
import { findJobById, findJobBySeq, isFinished, jobDetailPieces, jobErrors, jobFilterDoc, jobSummary, type JobRow, type JobStatus } from '../jobs/store.js';
import { filledPageNow, type PageQuery } from '../store/pages.js';
import { rowFilterOfOption, withFilterOption } from './filters.js';
import { CliError, emit, emitJsonPieces, parseJsonText, readSource, table, withGlobals, type CliIo, type Globals } from './io.js';
import { existingAccount, withCore } from './database.js';

/** Numbers from a file's text: a JSON array, or one per line (commas and spaces also split; `#` starts a comment). */
export function parseNumbers(text: string, source = 'The numbers file'): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const parsed = parseJsonText(trimmed, `${source} is not a valid JSON array.`, source);
    if (!Array.isArray(parsed)) throw new CliError(`${source} is not a JSON array.`, 2);
    return parsed.map(String);
  }
  return trimmed
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(/[,;\s]+/))
    .filter((s) => s !== '');
}

function accountFor(core: Core, account: string | undefined): string {
  if (account) return existingAccount(core, account);
  const master = masterAccount(core);
  if (!master) throw new CliError('The database has no master account: run `tel init` first.');
  return master.id;
}

/** Ctrl-C while following: stop at the next batch boundary (the job stays resumable). */
function interruptible(): { stopped: () => boolean; dispose: () => void } {
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.on('SIGINT', onSignal);
  return { stopped: () => stop, dispose: () => process.off('SIGINT', onSignal) };
}

function endOf(io: CliIo, g: Globals, job: JobRow, stopped: boolean): void {
  if (stopped && !isFinished(job.status)) {
    throw new CliError(`Stopped following job ${job.id} at ${job.processed}/${job.total}; a running server or \`tel jobs run\` resumes it.`);
  }
  emit(io, g, jobSummary(job), () => `Job ${job.id} ${job.status}: ${job.successes.toLocaleString('en-US')} numbers added, ${job.failures.toLocaleString('en-US')} errors (tel jobs show ${job.id}).`);
  if (job.status === 'failed') throw new CliError(`Job ${job.id} failed: ${job.error ?? 'see tel jobs show'}.`);
}

const CREATE_HELP = `
Who executes the job:
  A job is a row in the database; an executor adds its numbers in batches, committing them
  with the job's progress, so an interrupted job resumes exactly where it stopped.
  - By default this command follows the job with a progress bar (plain lines when stdout is
    not a terminal) until it is complete. A running \`tel serve\` on the same database takes
    it within a second; when no server runs (or none took it within --pickup-timeout), this
    command executes it itself. Either way it ends with the numbers added.
  - --no-wait only queues the job (status pending) and prints it: a running server executes
    it, or \`tel jobs run\` later.
  - Ctrl-C stops following. If this command was executing the job, it stops at a batch
    boundary and hands the job over: a running server or \`tel jobs run\` resumes it.

Examples:
  $ tel jobs create --resource <resource_id> --numbers numbers.txt
  $ printf '+14155550100\\n+14155550101\\n' | tel jobs create --resource <id> --numbers - --account <id>
  $ tel jobs create --resource <id> --numbers numbers.json --no-wait --json

The numbers file holds one number per line (or a JSON array); they are normalised to E.164.`;

/** `tel jobs …`: bulk number jobs, offline on the database file. */
export function defineJobs(jobs: Command, io: CliIo): void {
  jobs.addHelpText('after', '\nExamples:\n  $ tel jobs create --resource <id> --numbers numbers.txt\n  $ tel jobs list --account <id>\n  $ tel jobs show 202611-9f3c… --json\n  $ tel jobs run');

  withGlobals(jobs.command('create'))
    .description("add numbers to an account's inventory through a resource, as a job")
    .requiredOption('--resource <id>', 'the resource (carrier) the numbers are routed through')
    .requiredOption('--numbers <file>', 'file of numbers, or - for stdin')
    .option('--account <account>', 'account receiving the numbers (default: the master account)')
    .option('--name <name>', 'a name for the job')
    .option('--no-wait', 'only queue the job; a running server or `tel jobs run` executes it')
    .option('--pickup-timeout <seconds>', 'with a server running, how long to wait for it before executing here', '5')
    .addHelpText('after', CREATE_HELP)
    .action(async (opts: { resource: string; numbers: string; account?: string; name?: string; wait: boolean; pickupTimeout: string }, cmd: Command) => {
      const pickup = Number(opts.pickupTimeout);
      if (!Number.isFinite(pickup) || pickup < 0) throw new CliError(`--pickup-timeout must be a number of seconds, not ${opts.pickupTimeout}.`, 2);
      const numbers = parseNumbers(await readSource(io, opts.numbers), opts.numbers === '-' ? 'The numbers on stdin' : opts.numbers);
      if (numbers.length === 0) throw new CliError('The numbers file holds no numbers.', 2);
      await withCore(cmd, async (core, g) => {
        const accountId = accountFor(core, opts.account);
        const created = createAccountJob(core, accountId, accountId, { numbers, resource_id: opts.resource, ...(opts.name ? { name: opts.name } : {}) });
        const row = findJobById(core, String(created.id))!;
        if (!opts.wait) {
          emit(io, g, created, () => `Queued job ${row.id} (${row.total} numbers): a running tel serve executes it, or run \`tel jobs run\`.`);
          return;
        }
        io.err(`Job ${row.id}: ${row.total} numbers for account ${accountId}.`);
        const reporter = new ProgressReporter((line) => io.err(line), io.isTTY);
        const signal = interruptible();
        try {
          const result = await followJob(core, row.seq, {
            pickupTimeoutMs: pickup * 1000,
            pollMs: 100,
            onProgress: (job) => reporter.update(job, isFinished(job.status)),
            onNotice: (text) => reporter.note(text),
            shouldStop: signal.stopped,
          });
          endOf(io, g, result.job, result.stopped);
        } finally {
          signal.dispose();
        }
      });
    });

  withGlobals(jobs.command('run [ids...]'))
    .description('execute pending, released and stalled jobs here (no server needed), or the given ones')
    .addHelpText('after', '\nExamples:\n  $ tel jobs run                 every job waiting for an executor\n  $ tel jobs run 202611-9f3c…    one job\n\nJobs a live executor holds are left alone; a stalled one (not modified for\napi.resources job_recover_threshold_s, or held by a process of this machine that is\ngone, such as a killed server) is resumed where it stopped.')
    .action(async (ids: string[], _o: unknown, cmd: Command) =>
      withCore(cmd, async (core, g) => {
        const seqs = ids.length
          ? ids.map((id) => {
              const job = findJobById(core, id);
              if (!job) throw new CliError(`No job ${id}.`);
              return job.seq;
            })
          : runnableJobs(core);
        const results: Record<string, unknown>[] = [];
        const signal = interruptible();
        try {
          for (const seq of seqs) {
            if (signal.stopped()) break;
            const reporter = new ProgressReporter((line) => io.err(line), io.isTTY);
            const outcome = await runJobHere(core, seq, { onProgress: (job) => reporter.update(job, isFinished(job.status)), shouldStop: signal.stopped });
            const job = findJobBySeq(core, seq)!;
            results.push({ ...jobSummary(job), outcome: outcome ?? 'taken by another executor' });
          }
        } finally {
          signal.dispose();
        }
        emit(io, g, results, () => (results.length ? table(results, ['id', 'status', 'total', 'successes', 'failures', 'outcome']) : 'No job is waiting for an executor.'));
        if (results.some((r) => r.status === 'failed')) throw new CliError('Some jobs failed.');
        if (signal.stopped()) throw new CliError('Interrupted; the remaining jobs stay queued.');
      }),
    );

  withFilterOption(withGlobals(jobs.command('list')))
    .description('jobs with their counts, oldest first')
    .option('--account <account>', 'only this account')
    .option('--status <status>', 'pending, running, complete or failed')
    .option('--limit <n>', 'the newest N jobs', '50')
    .addHelpText('after', '\nExamples:\n  $ tel jobs list\n  $ tel jobs list --account <id> --status failed --json\n  $ tel jobs list --filter name=carrier-a')
    .action(async (opts: { account?: string; status?: string; limit: string; filter?: string[] }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        if (opts.status && !JOB_STATUSES.includes(opts.status as JobStatus)) throw new CliError(`--status must be one of ${JOB_STATUSES.join(', ')}.`, 2);
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new CliError(`--limit must be a positive integer, not ${opts.limit}.`, 2);
        const filter = rowFilterOfOption(opts.filter, jobFilterDoc);
        const q = { accountId: opts.account && existingAccount(core, opts.account), status: opts.status as JobStatus | undefined };
        const read = (page: PageQuery<number>) => listAccountJobs(core, { ...q, ...page });
        const { items } = filter ? filledPageNow(read, { pageSize: limit, filter }) : read({ pageSize: limit });
        const rows = items.reverse();
        const out = rows.map((r) => ({ ...jobSummary(r), account_id: r.account_id, created: new Date(r.created).toISOString().slice(0, 19) }));
        emit(io, g, out, () => table(out, ['id', 'account_id', 'status', 'total', 'successes', 'failures', 'created']));
      }),
    );

  withGlobals(jobs.command('show <id>'))
    .description('one job: counts, and its errors (--json: every per-number result)')
    .addHelpText('after', '\nExamples:\n  $ tel jobs show 202611-9f3c…\n  $ tel jobs show 202611-9f3c… --json')
    .action(async (id: string, _o: unknown, cmd: Command) =>
      withCore(cmd, async (core, g) => {
        const job = findJobById(core, id);
        if (!job) throw new CliError(`No job ${id}.`);
        // --json: every result, written as it is read; else the counts and the first errors, all that is read
        if (g.json) return emitJsonPieces(io, jobDetailPieces(core, job));
        const shown = [...jobErrors(core, job, SHOWN_ERRORS)].flat();
        const lines = [progressLine(job), `account ${job.account_id}, resource ${job.resource_id}${job.error ? `, failed: ${job.error}` : ''}`];
        for (const e of shown) lines.push(`  ${e.number}: ${e.reason}${e.message ? ` (${e.message})` : ''}`);
        if (job.failures > shown.length) lines.push(`  … ${(job.failures - shown.length).toLocaleString('en-US')} more (--json for all)`);
        io.out(lines.join('\n'));
      }),
    );
}

/** Errors `tel jobs show` lists. */
const SHOWN_ERRORS = 20;
