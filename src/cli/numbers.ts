import type { Command } from 'commander';
import { masterAccount } from '../modules/accounts/service.js';
import { addToPool, listPool, MAX_POOL_RANGE, numberRange, removeFromPool } from '../modules/numbers/pool.js';
import { listNumbers, numberJson } from '../modules/numbers/service.js';
import { CliError, emit, table, wholeNumber, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

interface PoolAddOptions {
  account?: string;
  count?: number;
}

/** `tel numbers …`: the simulated carrier's pool, and an account's numbers. */
export function defineNumbers(numbers: Command, io: CliIo): void {
  numbers.addHelpText(
    'after',
    `\nExamples:\n  $ tel numbers pool add +14155550100 --count 100\n  $ tel numbers pool add +14155559900 --account "Reseller Co"\n  $ tel numbers pool list --prefix +1415\n  $ tel numbers list --account "Shop"\n\nThe pool is what the simulated carrier offers: an account searches the pool it is offered\n(its own, else its reseller's; the master account's by default) with\nGET /v2/accounts/{id}/phone_numbers?prefix=415 and buys with PUT …/phone_numbers/{number}/activate.\nA number released goes back to the pool it came from.`,
  );
  const pool = numbers
    .command('pool')
    .description("the simulated carrier's pool of numbers accounts search and buy from")
    .addHelpText('after', '\nExamples:\n  $ tel numbers pool add +14155550100 --count 100\n  $ tel numbers pool list --prefix +1415\n  $ tel numbers pool remove +14155550100');

  withGlobals(pool.command('add <numbers...>'))
    .description('offer numbers to an account and the accounts it resells to (default: the master account, which offers them to all)')
    .option('--account <account>', 'the account offered the numbers (a reseller, the master account)')
    .option('--count <n>', `with one number: that many numbers from it on (at most ${MAX_POOL_RANGE.toLocaleString('en')})`, wholeNumber)
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel numbers pool add +14155550100 +14155550101\n  $ tel numbers pool add 4155550100 --count 1000          +14155550100 … +14155551099\n  $ tel numbers pool add +442071234000 --count 50 --account "UK Reseller" --json\n\nA number an account holds or another pool offers is left out (told on stderr).',
    )
    .action(async (given: string[], opts: PoolAddOptions, cmd: Command) =>
      withCore(cmd, (core, g) => {
        if (opts.count !== undefined && given.length !== 1) throw new CliError('--count takes one number to start from.', 2);
        const accountId = opts.account ? existingAccount(core, opts.account) : masterAccount(core)?.id;
        if (!accountId) throw new CliError('The database has no master account: run tel init first.', 1);
        const list = opts.count !== undefined ? numberRange(given[0], opts.count) : given;
        const r = addToPool(core, accountId, list);
        for (const [n, why] of Object.entries(r.refused)) io.err(`${n}: ${why}, left out.`);
        emit(io, g, { account_id: accountId, added: r.added, refused: r.refused }, () => `Added ${r.added.length} number${r.added.length === 1 ? '' : 's'} to the pool of ${accountId}.`);
        if (r.added.length === 0 && Object.keys(r.refused).length > 0) throw new CliError('No number was added.');
      }),
    );

  withGlobals(pool.command('list'))
    .description('the numbers of the pool (of one account with --account), in E.164 order')
    .option('--account <account>', "only this account's pool")
    .option('--prefix <e164>', 'only numbers starting with this (+1415)')
    .option('--limit <n>', 'at most this many (default 100; 0: all)', wholeNumber, 100)
    .addHelpText('after', '\nExamples:\n  $ tel numbers pool list\n  $ tel numbers pool list --prefix +1415 --limit 0 --json')
    .action(async (opts: { account?: string; prefix?: string; limit: number }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const accountId = opts.account ? existingAccount(core, opts.account) : undefined;
        const rows = listPool(core, { accountId, prefix: opts.prefix, pageSize: opts.limit === 0 ? undefined : opts.limit }).items;
        emit(io, g, rows.map((r) => ({ number: r.number, account_id: r.account_id })), () => table(rows as unknown as Record<string, unknown>[], ['number', 'account_id']));
      }),
    );

  withGlobals(pool.command('remove <numbers...>'))
    .description('take numbers out of the pool (those accounts bought stay theirs)')
    .addHelpText('after', '\nExamples:\n  $ tel numbers pool remove +14155550100 +14155550101')
    .action(async (given: string[], _opts: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const removed = removeFromPool(core, given);
        emit(io, g, { removed }, () => `Removed ${removed.length} number${removed.length === 1 ? '' : 's'} from the pool.`);
      }),
    );

  withGlobals(numbers.command('list'))
    .description("an account's numbers, as GET /v2/accounts/{id}/phone_numbers lists them")
    .requiredOption('--account <account>', 'the account')
    .option('--state <state>', 'only numbers in this state (in_service, reserved, port_in, …)')
    .option('--limit <n>', 'at most this many (default 100; 0: all)', wholeNumber, 100)
    .addHelpText('after', '\nExamples:\n  $ tel numbers list --account Shop\n  $ tel numbers list --account <id> --state in_service --json')
    .action(async (opts: { account: string; state?: string; limit: number }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const accountId = existingAccount(core, opts.account);
        const rows = listNumbers(core, accountId, { states: opts.state ? [opts.state] : undefined, pageSize: opts.limit === 0 ? undefined : opts.limit }).items;
        const out = rows.map((r) => ({ number: r.number, ...numberJson(r) }));
        emit(io, g, out, () => table(out, ['number', 'state', 'used_by', 'features']));
      }),
    );
}
