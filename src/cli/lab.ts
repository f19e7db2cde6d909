import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { closeCore, openCore, type Core } from '../core.js';
import { applyPlan, ApplyFailed, describe, planSummary } from '../lab/apply.js';
import { exportLab, labText } from '../lab/export.js';
import { planLab, PlanRefused, type Plan } from '../lab/plan.js';
import { LabInvalid, parseLabText, type Problem } from '../lab/parse.js';
import { readLab, type Lab } from '../lab/read.js';
import { shareLoginKey } from '../modules/users/login-key.js';
import { CliError, emit, globalsOf, readSource, type CliIo } from './io.js';
import { existingAccount, openCoreAt, withCore } from './database.js';

/** Reads and checks a lab file whole: every problem on stderr and exit 2 when it does not validate. */
export async function loadLab(io: CliIo, file: string): Promise<Lab> {
  const text = await readSource(io, file);
  try {
    return readLab(await parseLabText(text, file));
  } catch (err) {
    if (!(err instanceof LabInvalid)) throw err;
    reportProblems(io, err.problems);
    throw new CliError(`${file} does not validate (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'}): nothing was written.`, 2);
  }
}

function reportProblems(io: CliIo, problems: Problem[]): void {
  for (const p of problems) io.err(`${p.path}: ${p.message}`);
}

/** Plans a lab on an open core, refusing (exit 1, every problem listed) when the database does not fit it. */
export async function planOrRefuse(io: CliIo, core: Core, lab: Lab, prune: boolean): Promise<Plan> {
  try {
    return await planLab(core, lab, { prune });
  } catch (err) {
    if (!(err instanceof PlanRefused)) throw err;
    reportProblems(io, err.problems);
    throw new CliError(`The lab does not fit the database ${core.file} (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'}): nothing was written.`);
  }
}

/** Applies a plan (one transaction, or batches when large); a failed change is one sentence. */
export function applyOrFail(core: Core, plan: Plan) {
  try {
    return applyPlan(core, plan);
  } catch (err) {
    if (err instanceof ApplyFailed) throw new CliError(err.message);
    throw err;
  }
}

/** Applies a plan to an open core, or to the database file, created for it (`planned` made the plan). */
function applyTo(core: Core | undefined, file: string, plan: Plan, planned: Core) {
  if (core) return applyOrFail(core, plan);
  const created = openCoreAt(file);
  try {
    // the plan's password hashes were made with the planning copy's login key
    shareLoginKey(planned, created);
    return applyOrFail(created, plan);
  } finally {
    closeCore(created);
  }
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

/** `tel apply`: a lab file made real on the database. */
export function defineApply(apply: Command, io: CliIo): void {
  apply
    .option('--dry-run', 'show the plan and write nothing')
    .option('--prune', "also remove what the file's lists leave out (sub-accounts, users, hooks, … of the accounts it declares)")
    .addHelpText(
      'after',
      `
Examples:
  $ tel apply examples/lab.yaml --dry-run        the plan: + create, ~ change (with the fields), - remove
  $ tel apply examples/lab.yaml                  apply it (a second run says "No changes")
  $ tel apply lab.yaml --prune                   remove what the file's lists leave out
  $ tel export --with-secrets > lab.yaml && tel --db copy.db apply lab.yaml   copy a database
  $ tel apply lab.json --json                    the plan and the outcome as JSON

Objects are matched by name (accounts under their parent, users by username, webhooks, resources
and documents by name), never by id; {{accounts.NAME.id}}, {{users.ACCOUNT/USERNAME.id}},
{{accounts.NAME.realm}} … stand for what the file declares. A file that does not validate is
refused whole, every problem listed (exit 2); a database that does not fit it (an ambiguous
name) is refused too (exit 1). Nothing is removed without --prune, and only from lists the file
has. Limits are applied with their charges accepted. A user without a password gets a generated
one, shown once. Works beside a running server: its webhooks see the changes' object events.`,
    )
    .action(async (file: string, opts: { dryRun?: boolean; prune?: boolean }, cmd: Command) => {
      const lab = await loadLab(io, file);
      const g = globalsOf(cmd);
      // A database that does not exist yet is planned as an empty one, and created only to apply:
      // a dry run, or a lab that does not fit, leaves no file behind.
      const fresh = g.db !== ':memory:' && !existsSync(g.db);
      const core = fresh ? openCore(':memory:') : openCoreAt(g.db);
      try {
        const plan = await planOrRefuse(io, core, lab, opts.prune === true);
        const lines = plan.changes.map(describe);
        const outcome = plan.changes.length === 0 || opts.dryRun ? undefined : applyTo(fresh ? undefined : core, g.db, plan, core);
        if (g.json) {
          emit(io, g, {
            changes: plan.changes.map((c) => ({ action: c.action, kind: c.kind, name: c.name, ...(c.fields ? { fields: c.fields } : {}) })),
            applied: outcome !== undefined,
            ...(outcome
              ? { elapsed_ms: round1(outcome.elapsedMs), transactions: outcome.transactions, longest_transaction_ms: round1(outcome.longestMs) }
              : {}),
            generated: Object.fromEntries(outcome ? plan.generated.map((x) => [x.name, x.value]) : []),
            unmanaged: plan.unmanaged,
          });
          return;
        }
        if (plan.changes.length === 0) io.out(`No changes: the database already matches ${file}.`);
        else io.out([...lines, planSummary(plan)].join('\n'));
        if (plan.unmanaged.length > 0) {
          io.out(`${plan.unmanaged.length} object${plan.unmanaged.length === 1 ? '' : 's'} of the database not in the file's lists kept (--prune removes them): ${plan.unmanaged.slice(0, 5).join(', ')}${plan.unmanaged.length > 5 ? ', …' : ''}.`);
        }
        if (opts.dryRun) {
          if (plan.changes.length > 0) io.out('Dry run: nothing was written.');
          return;
        }
        if (!outcome) return;
        const how = outcome.transactions === 1 ? 'one transaction' : `${outcome.transactions} transactions of ${outcome.longestMs.toFixed(1)} ms at most`;
        io.out(`Applied in ${outcome.elapsedMs.toFixed(1)} ms, ${how}: ${outcome.created} created, ${outcome.changed} changed, ${outcome.removed} removed.`);
        if (plan.generated.length > 0) io.out(['Generated (shown once, keep them):', ...plan.generated.map((x) => `  ${x.name}  ${x.value}`)].join('\n'));
      } finally {
        closeCore(core);
      }
    });
}

/** `tel export`: the database as a lab file. */
export function defineExport(exportCmd: Command, io: CliIo): void {
  exportCmd
    .option('--account <account>', 'only this account and its sub-accounts (the file names its parent)')
    .option('--with-secrets', 'write API keys, webhook secrets and gateway passwords as they are (masked otherwise)')
    .addHelpText(
      'after',
      `
Examples:
  $ tel export > lab.yaml                        the whole database, secrets masked as ********
  $ tel export --with-secrets > lab.yaml         with the API keys and secrets
  $ tel export --account <id> --json             one account's subtree, as JSON

Ids become references ({{accounts.Customer A.id}}), so the file builds the same lab on an empty
database: export, apply there, export again gives the same file. A masked value keeps what the
database holds when the file is applied (a new webhook gets a new secret, a new account a new API
key). Passwords are never exported: tel keeps only salted hashes.`,
    )
    .action(async (opts: { account?: string; withSecrets?: boolean }, cmd: Command) =>
      withCore(cmd, async (core, g) => {
        const accountId = opts.account ? existingAccount(core, opts.account) : undefined;
        let exported;
        try {
          exported = exportLab(core, { accountId, withSecrets: opts.withSecrets === true });
        } catch (err) {
          throw new CliError(`Cannot export: ${(err as Error).message}.`);
        }
        io.out((await labText(exported.lab, g.json ? 'json' : 'yaml')).replace(/\n$/, ''));
        for (const note of exported.notes) io.err(`Note: ${note}.`);
      }),
    );
}
