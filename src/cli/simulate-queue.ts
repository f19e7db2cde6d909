import type { Command } from 'commander';
import { runSimulation, type SimulateCommand } from './simulate-run.js';
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
    .requiredOption('--account <account>', 'account of the voicemail box')
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

/** `tel simulate queue-call`: an agent answers a queue caller, who then hangs up. */
export const simulateQueueCallCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('queue-call'))
    .description("a queue call picked up by an agent, then hung up: the queue's pickup and hangup notifications")
    .requiredOption('--account <account>', 'account of the queue')
    .requiredOption('--queue <id>', 'queue id')
    .requiredOption('--agent <user_id>', 'the agent (a user of the account) who answers')
    .option('--caller-id-number <number>', 'the caller waiting in the queue')
    .option('--caller-id-name <name>', 'their name')
    .option('--member-call-id <id>', "the caller's call id (default: generated)")
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel simulate queue-call --account <id> --queue <queue_id> --agent <user_id>\n  $ tel simulate queue-call --account <id> --queue <queue_id> --agent <user_id> --caller-id-number +14155550100 --json\n\nThe notifications go to the queue's notifications.pickup / .hangup (or .all) URLs through the\ndurable outbox: a running \`tel serve\` on the same database sends them, with retries, and\nGET /v2/accounts/{id}/queues/{queue_id}/notifications lists every try.`,
    )
    .action(async (opts: CallerOptions & { queue: string; agent: string; memberCallId?: string }, cmd: Command) =>
      runSimulation(cmd, io, opts.account, {
        kind: 'queue_call',
        queue_id: opts.queue,
        agent_id: opts.agent,
        ...(opts.memberCallId ? { member_call_id: opts.memberCallId } : {}),
        ...callerFields(opts),
      }),
    );
};
