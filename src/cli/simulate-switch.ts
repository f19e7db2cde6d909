import { Option, type Command } from 'commander';
import { CliError, withGlobals, type CliIo } from './io.js';
import { runSimulation, type SimulateCommand } from './simulate-run.js';

interface FaxOptions {
  account: string;
  direction: string;
  failure?: boolean;
  error?: string;
  pages: string;
  from?: string;
  fromName?: string;
  to?: string;
  faxbox?: string;
  owner?: string;
  job?: string;
  emailFrom?: string;
}

/** `tel simulate fax`: a fax arriving, a queued one sent by the fax server, or one e-mailed to a fax box. */
export const simulateFaxCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('fax'))
    .description('a fax: arriving (the inbox, inbound_fax), or a queued one sent (the outbox, outbound_fax), or one e-mailed to a fax box')
    .requiredOption('--account <account>', 'account of the fax')
    .addOption(new Option('--direction <dir>', 'a fax arriving, or one the fax server sends').choices(['inbound', 'outbound']).default('inbound'))
    .option('--failure', 'the fax does not go through (a queued one is retried while it has retries)')
    .option('--error <text>', 'why it failed')
    .option('--pages <n>', 'pages sent or received', '1')
    .option('--from <number>', 'inbound: the sending number')
    .option('--from-name <name>', 'inbound: the sender')
    .option('--to <number>', 'inbound: the number it arrives on; by e-mail: the number to fax')
    .option('--faxbox <id>', 'the fax box it arrives in, or is e-mailed to')
    .option('--owner <id>', 'inbound: the user it is for (default: the fax box owner)')
    .option('--job <id>', 'outbound: the queued fax to send (default: the oldest pending)')
    .option('--email-from <address>', "outbound: e-mail it to the fax box from this address (its permission list decides)")
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel simulate fax --account <id> --from +442071838750 --faxbox <faxbox_id> --pages 3\n  $ tel simulate fax --account <id> --direction outbound\n  $ tel simulate fax --account <id> --direction outbound --failure --error "No answer" --json\n  $ tel simulate fax --account <id> --direction outbound --faxbox <faxbox_id> --email-from ann@example.com --to +14155550150\n\nFaxes to send are queued with PUT /v2/accounts/{id}/faxes/outgoing.`,
    )
    .action(async (opts: FaxOptions, cmd: Command) => {
      const pages = Number(opts.pages);
      if (!Number.isInteger(pages) || pages < 1) throw new CliError(`--pages must be a whole number from 1, not ${opts.pages}.`, 2);
      await runSimulation(cmd, io, opts.account, {
        kind: 'fax',
        direction: opts.direction,
        result: opts.failure ? 'failure' : 'success',
        pages,
        ...(opts.error ? { error: opts.error } : {}),
        ...(opts.from ? { from: opts.from } : {}),
        ...(opts.fromName ? { from_name: opts.fromName } : {}),
        ...(opts.to ? { to: opts.to } : {}),
        ...(opts.faxbox ? { faxbox_id: opts.faxbox } : {}),
        ...(opts.owner ? { owner_id: opts.owner } : {}),
        ...(opts.job ? { job_id: opts.job } : {}),
        ...(opts.emailFrom ? { email_from: opts.emailFrom } : {}),
      });
    });
};

/** `tel simulate subscribe`: a phone watches a presence id (a busy lamp field). */
export const simulateSubscribeCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('subscribe'))
    .description('a phone subscribes to a presence id: presence lists it, states set by hand reach it')
    .requiredOption('--account <account>', 'account of the phone')
    .requiredOption('--device <id>', 'the phone that watches')
    .requiredOption('--to <presence>', 'what it watches: an extension, a presence id, a parking slot (*3101)')
    .addOption(new Option('--package <name>', 'the event package').choices(['dialog', 'presence', 'message-summary']).default('dialog'))
    .option('--expires <seconds>', 'how long the subscription lasts', '3600')
    .addHelpText('after', `\nExamples:\n  $ tel simulate subscribe --account <id> --device <device_id> --to 1001\n  $ tel simulate subscribe --account <id> --device <device_id> --to '*3101' --expires 600 --json`)
    .action(async (opts: { account: string; device: string; to: string; package: string; expires: string }, cmd: Command) => {
      const expires = Number(opts.expires);
      if (!Number.isInteger(expires) || expires < 1) throw new CliError(`--expires must be a whole number of seconds, not ${opts.expires}.`, 2);
      await runSimulation(cmd, io, opts.account, { kind: 'subscribe', device_id: opts.device, presentity: opts.to, package: opts.package, expires });
    });
};
