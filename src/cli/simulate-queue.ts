import type { Command } from 'commander';
import { runSimulation, type SimulateCommand } from './simulate.js';
import { withGlobals, type CliIo } from './io.js';

interface CallerOptions {
  account: string;
  callerIdNumber?: string;
  callerIdName?: string;
}

function callerFields(opts: CallerOptions): Record<string, unknown> {
  return {
    ...(opts.callerIdNumber ? { caller_id_number: opts.callerIdNumber } : {}),
    ...(opts.callerIdName ? { caller_id_name: opts.callerIdName } : {}),
  };
}

/** `tel simulate voicemail`: a message left in a box, pushed to the subscriptions that want it. */
export const simulateVoicemailCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('voicemail'))
    .description('leave a voicemail: new_voicemail pushes (new_unowned_voicemail when the box has no owner) go to the push outbox')
    .requiredOption('--account <id>', 'account of the voicemail box')
    .requiredOption('--vmbox <id>', 'voicemail box id')
    .option('--owner <user_id>', "the box's owner (default: the box's owner_id)")
    .option('--caller-id-number <number>', 'who left the message')
    .option('--caller-id-name <name>', 'their name')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel simulate voicemail --account <id> --vmbox <vmbox_id>\n  $ tel simulate voicemail --account <id> --vmbox <vmbox_id> --caller-id-number +14155550100 --json\n\nThe pushes are listed by GET /v2/accounts/{id}/push_notifications (newest first).`,
    )
    .action(async (opts: CallerOptions & { vmbox: string; owner?: string }, cmd: Command) =>
      runSimulation(cmd, io, opts.account, {
        kind: 'voicemail',
        vmbox_id: opts.vmbox,
        ...(opts.owner ? { owner_id: opts.owner } : {}),
        ...callerFields(opts),
      }),
    );
};
