import { Option, type Command } from 'commander';
import { NOTIFICATION_TYPES } from '../modules/webhooks/notifications.js';
import { OBJECT_ACTIONS, OBJECT_HOOK_TYPES } from '../modules/webhooks/hook-types.js';
import { CliError, jsonArg, withGlobals, type CliIo } from './io.js';
import { runSimulation, type SimulateCommand } from './simulate-run.js';

interface MessageOptions {
  account: string;
  direction: string;
  from?: string;
  to?: string;
  body?: string;
  origin: string;
  charges?: string;
}

/** `tel simulate sms` and `tel simulate mms`: a message through the `sms` / `mms` hooks. */
function messageCommand(type: 'sms' | 'mms'): SimulateCommand {
  return (simulate: Command, io: CliIo) => {
    withGlobals(simulate.command(type))
      .description(`an ${type.toUpperCase()} arriving (or sent): the ${type} hook event, with Kazoo's fields`)
      .requiredOption('--account <account>', 'account the message belongs to')
      .addOption(new Option('--direction <dir>', 'arriving or sent (the payload tells them apart by from and to)').choices(['inbound', 'outbound']).default('inbound'))
      .option('--from <number>', 'sender')
      .option('--to <number>', 'recipient')
      .option('--body <text>', type === 'mms' ? "what the carrier sent (the media's URL, say)" : 'the text')
      .addOption(new Option('--origin <route>', 'through a carrier or between own devices').choices(['offnet', 'onnet']).default('offnet'))
      .option('--charges <amount>', "the carrier's price of the message")
      .addHelpText(
        'after',
        `\nExamples:\n  $ tel simulate ${type} --account <id> --from +442071838750 --to +14155550123 --body ${type === 'mms' ? 'https://media.example/cat.jpg' : '"Running late"'}\n  $ tel simulate ${type} --account <id> --direction outbound --charges 0.0075 --json`,
      )
      .action(async (opts: MessageOptions, cmd: Command) => {
        const charges = opts.charges === undefined ? undefined : Number(opts.charges);
        if (charges !== undefined && !(Number.isFinite(charges) && charges >= 0)) throw new CliError(`--charges must be a number, not ${opts.charges}.`, 2);
        await runSimulation(cmd, io, opts.account, {
          kind: type,
          direction: opts.direction,
          origin: opts.origin,
          ...(opts.from ? { from: opts.from } : {}),
          ...(opts.to ? { to: opts.to } : {}),
          ...(opts.body !== undefined ? { body: opts.body } : {}),
          ...(charges !== undefined ? { charges } : {}),
        });
      });
  };
}

export const simulateSmsCommand = messageCommand('sms');
export const simulateMmsCommand = messageCommand('mms');

/** `tel simulate notification`: one platform notification through the `notifications` hooks. */
export const simulateNotificationCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('notification'))
    .description("a platform notification (registration, missed call, low balance, …) with Kazoo's fields")
    .requiredOption('--account <account>', 'account the notification is about')
    .addOption(new Option('--event <name>', 'which notification').choices(Object.keys(NOTIFICATION_TYPES)).makeOptionMandatory())
    .option('--fields <json>', "values of the notification's own fields, as JSON or @file (the rest are made up)")
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel simulate notification --account <id> --event register\n  $ tel simulate notification --account <id> --event low_balance --fields '{"current_balance": 1.25}' --json`,
    )
    .action(async (opts: { account: string; event: string; fields?: string }, cmd: Command) => {
      const fields = opts.fields === undefined ? undefined : await jsonArg(opts.fields, '--fields');
      await runSimulation(cmd, io, opts.account, { kind: 'notification', event_name: opts.event, ...(fields === undefined ? {} : { fields }) });
    });
};

/** `tel simulate object`: the `object` event of a stored object's change, without changing it. */
export const simulateObjectCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('object'))
    .description('an object event (a document created, edited or deleted) without changing anything')
    .requiredOption('--account <account>', 'account the object belongs to')
    .addOption(new Option('--type <type>', 'the kind of object').choices(OBJECT_HOOK_TYPES).default('device'))
    .addOption(new Option('--action <action>', 'what happened to it').choices(OBJECT_ACTIONS).default('doc_edited'))
    .option('--id <id>', "the object's id (default: a new one)")
    .addHelpText('after', `\nExamples:\n  $ tel simulate object --account <id> --type user --action doc_created\n  $ tel simulate object --account <id> --type device --id <device_id> --json`)
    .action(async (opts: { account: string; type: string; action: string; id?: string }, cmd: Command) =>
      runSimulation(cmd, io, opts.account, { kind: 'object', type: opts.type, action: opts.action, ...(opts.id ? { id: opts.id } : {}) }),
    );
};
