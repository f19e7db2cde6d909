import type { Command } from 'commander';
import type { ChargeItem } from '../modules/limits/charges.js';
import { LIMIT_QUANTITIES } from '../modules/limits/schema.js';
import { getLimits, quoteLimits, setLimits } from '../modules/limits/service.js';
import { CliError, emit, jsonObjectArg, table, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

interface SetOptions {
  account: string;
  data?: string;
  allowPrepay?: boolean;
  acceptCharges?: boolean;
  [item: string]: unknown;
}

/** `inbound_trunks` → `inboundTrunks`, the key commander gives `--inbound-trunks`. */
const camel = (item: string) => item.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${value} is not a non-negative whole number.`, 2);
  return n;
}

function describeLimits(data: Record<string, unknown>): string {
  const keys = ['allow_prepay', ...LIMIT_QUANTITIES].filter((k) => data[k] !== undefined);
  return keys.map((k) => `${k}: ${String(data[k])}`).join('\n');
}

function describeCharges(charges: Record<string, ChargeItem>): string {
  const rows = Object.values(charges).map((c) => ({ ...c, monthly: (c.quantity * c.rate).toFixed(2) }));
  return `This change incurs charges:\n${table(rows, ['item', 'quantity', 'rate', 'monthly', 'single_discount_rate', 'cumulative_discount_rate'])}`;
}

async function askYesNo(io: CliIo, question: string): Promise<boolean> {
  io.out(question);
  let answer: string;
  if (io.readStdin) {
    answer = (await io.readStdin()).split('\n')[0];
  } else {
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
    try {
      // Input that ends before a line (stdin at EOF) answers no rather than leaving the question pending.
      answer = await new Promise<string>((resolve) => {
        rl.once('close', () => resolve(''));
        rl.question('').then(resolve, () => resolve(''));
      });
    } finally {
      rl.close();
    }
  }
  return /^\s*y(es)?\s*$/i.test(answer);
}

/** `tel limits get|set`: an account's trunk and call limits, with the charges a change incurs. */
export function defineLimits(limits: Command, io: CliIo): void {
  limits.addHelpText(
    'after',
    `\nExamples:\n  $ tel limits get --account <id>\n  $ tel limits set --account <id> --inbound-trunks 11 --outbound-trunks 5\n  $ tel limits set --account <id> --inbound-trunks 11 --accept-charges\n  $ tel limits set --account <id> --data '{"twoway_trunks":2,"allow_prepay":false}'\n\nRates come from the "services" configuration (tel config set services limits '{"inbound_trunks":{"rate":6.99}}').\nA change that raises a charged quantity shows the charges and asks on a terminal; elsewhere it\nneeds --accept-charges and is refused (exit 1) without it.`,
  );

  withGlobals(limits.command('get'))
    .description("an account's limits (the defaults when none were stored)")
    .requiredOption('--account <account>', 'the account')
    .addHelpText('after', '\nExamples:\n  $ tel limits get --account <id>\n  $ tel limits get --account <id> --json')
    .action(async (opts: { account: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const r = getLimits(core, existingAccount(core, opts.account));
        emit(io, g, r.data, () => describeLimits(r.data));
      }),
    );

  const set = withGlobals(limits.command('set'))
    .description('change limits; shows the charges and asks, or takes --accept-charges')
    .requiredOption('--account <account>', 'the account')
    .option('--data <json|@file>', 'limits fields as a JSON object')
    .option('--allow-prepay', 'allow per-minute calls when no credit is available')
    .option('--no-allow-prepay', 'refuse per-minute calls when no credit is available')
    .option('--accept-charges', 'accept the charges the change incurs without asking')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel limits set --account <id> --inbound-trunks 11 --outbound-trunks 5      shows the charges and asks\n  $ tel limits set --account <id> --inbound-trunks 11 --accept-charges\n  $ tel limits set --account <id> --data '{"twoway_trunks":2,"allow_prepay":false}' --json`,
    );
  for (const item of LIMIT_QUANTITIES) set.option(`--${item.replace(/_/g, '-')} <n>`, `${item.replace(/_/g, ' ')}`, count);
  set.action(async (opts: SetOptions, cmd: Command) => {
    const input: Record<string, unknown> = {};
    if (opts.data !== undefined) {
      Object.assign(input, await jsonObjectArg(opts.data, '--data'));
    }
    for (const item of LIMIT_QUANTITIES) if (opts[camel(item)] !== undefined) input[item] = opts[camel(item)];
    if (opts.allowPrepay !== undefined) input.allow_prepay = opts.allowPrepay;
    if (Object.keys(input).length === 0) throw new CliError('Nothing to change: give a limit option (e.g. --inbound-trunks 5) or --data.', 2);

    await withCore(cmd, async (core, g) => {
      const accountId = existingAccount(core, opts.account);
      const { charges } = quoteLimits(core, accountId, input);
      const charged = Object.keys(charges).length > 0;
      let accept = opts.acceptCharges === true;
      if (charged && !accept) {
        if (!io.isTTY || g.json) {
          emit(io, g, { limits: charges }, () => describeCharges(charges));
          throw new CliError('Refused: this change incurs charges; repeat it with --accept-charges to accept them.');
        }
        io.out(describeCharges(charges));
        accept = await askYesNo(io, 'Accept these charges? [y/N] ');
        if (!accept) throw new CliError('Cancelled: the charges were not accepted, nothing changed.');
      }
      const r = setLimits(core, accountId, input, { acceptCharges: accept });
      emit(io, g, r.data, () => `Saved limits of ${opts.account}.\n${describeLimits(r.data)}`);
    });
  });
}
