import { Option, type Command } from 'commander';
import { HANGUP_CODES } from '../modules/channels/calls.js';
import { CliError, withGlobals, type CliIo } from './io.js';
import { runSimulation, type SimulateCommand } from './simulate-run.js';

interface CallOptions {
  account: string;
  direction: string;
  from?: string;
  fromName?: string;
  to?: string;
  toName?: string;
  answer: boolean;
  bridge: boolean;
  hangupCause?: string;
  internal?: boolean;
  device?: string;
  user?: string;
  resource?: string;
  hangup: boolean;
  record?: boolean;
}

/** `tel simulate call`: one call leg's channel events through the webhook engine. */
export const simulateCallCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('call'))
    .description('a call: channel_create, channel_answer, channel_bridge and channel_destroy, sharing one call_id')
    .requiredOption('--account <account>', 'account the call belongs to')
    .addOption(new Option('--direction <dir>', 'which way the call goes').choices(['inbound', 'outbound']).default('inbound'))
    .option('--from <number>', 'caller id number')
    .option('--from-name <name>', 'caller id name')
    .option('--to <number>', 'callee id number')
    .option('--to-name <name>', 'callee id name')
    .option('--no-answer', 'ring out unanswered (no answer, no bridge)')
    .option('--no-bridge', 'answered but never bridged to another leg')
    .addOption(new Option('--hangup-cause <cause>', 'why it ended (default: NORMAL_CLEARING)').choices(Object.keys(HANGUP_CODES)))
    .option('--internal', 'a loopback leg (hooks with include_internal_legs false skip it)')
    .option('--device <id>', "the device the call comes from or rings (authorizing_id; its owner is the owner_id)")
    .option('--user <id>', 'the user the call belongs to (owner_id; alone, the authorizing user)')
    .option('--resource <id>', "the carrier it goes through: an account's resource (local_resource_id) or a global one")
    .option('--no-hangup', 'keep the call up: its legs are channels until `tel simulate hangup` (or the channel\'s hangup action) ends it')
    .option('--record', 'record the answered call (a recording, listed in its CDR)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel simulate call --account <id>\n  $ tel simulate call --account <id> --direction outbound --from +14155550100 --to +14155550199\n  $ tel simulate call --account <id> --direction outbound --device <device_id> --resource <resource_id>\n  $ tel simulate call --account <id> --no-answer --hangup-cause NO_ANSWER --json\n  $ tel simulate call --account <id> --device <device_id> --no-hangup --record\n\nEach leg leaves its CDR when it ends. A running \`tel serve\` on the same file delivers the events to matching webhooks.`,
    )
    .action(async (opts: CallOptions, cmd: Command) => {
      await runSimulation(cmd, io, opts.account, {
        kind: 'call',
        direction: opts.direction,
        ...(opts.from ? { caller_id_number: opts.from } : {}),
        ...(opts.fromName ? { caller_id_name: opts.fromName } : {}),
        ...(opts.to ? { callee_id_number: opts.to } : {}),
        ...(opts.toName ? { callee_id_name: opts.toName } : {}),
        answer: opts.answer,
        bridge: opts.bridge,
        ...(opts.hangupCause ? { hangup_cause: opts.hangupCause } : {}),
        internal: opts.internal === true,
        ...(opts.device ? { device_id: opts.device } : {}),
        ...(opts.user ? { user_id: opts.user } : {}),
        ...(opts.resource ? { resource_id: opts.resource } : {}),
        hangup: opts.hangup,
        record: opts.record === true,
      });
    });
};

/** `tel simulate hangup`: a call kept up ends. */
export const simulateHangupCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('hangup'))
    .description('a call kept up (`call --no-hangup`) ends: channel_destroy, and its legs\' CDRs')
    .requiredOption('--account <account>', 'account the call belongs to')
    .requiredOption('--call-id <id>', 'a leg of the call (its call_id)')
    .addOption(new Option('--hangup-cause <cause>', 'why it ended (default: NORMAL_CLEARING)').choices(Object.keys(HANGUP_CODES)))
    .addHelpText('after', `\nExamples:\n  $ tel simulate hangup --account <id> --call-id <call_id>\n  $ tel simulate hangup --account <id> --call-id <call_id> --hangup-cause USER_BUSY --json`)
    .action(async (opts: { account: string; callId: string; hangupCause?: string }, cmd: Command) => {
      await runSimulation(cmd, io, opts.account, {
        kind: 'hangup',
        call_id: opts.callId,
        ...(opts.hangupCause ? { hangup_cause: opts.hangupCause } : {}),
      });
    });
};

/** `tel simulate parking`: a call parked in a slot, then retrieved or abandoned. */
export const simulateParkingCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('parking'))
    .description('a parked call: PARK_PARKED, then PARK_RETRIEVED or PARK_ABANDONED')
    .requiredOption('--account <account>', 'account of the parking lot')
    .requiredOption('--slot <n>', 'parking slot number')
    .option('--from <number>', 'caller id number')
    .option('--from-name <name>', 'caller id name')
    .addOption(new Option('--outcome <what>', 'how the parked call ends').choices(['parked', 'retrieved', 'abandoned']).default('parked'))
    .addHelpText('after', `\nExamples:\n  $ tel simulate parking --account <id> --slot 101\n  $ tel simulate parking --account <id> --slot 7 --outcome retrieved --json`)
    .action(async (opts: { account: string; slot: string; from?: string; fromName?: string; outcome: string }, cmd: Command) => {
      const slot = Number(opts.slot);
      if (!Number.isInteger(slot) || slot < 0) throw new CliError(`--slot must be a whole number, not ${opts.slot}.`, 2);
      await runSimulation(cmd, io, opts.account, {
        kind: 'parking',
        slot,
        outcome: opts.outcome,
        ...(opts.from ? { caller_id_number: opts.from } : {}),
        ...(opts.fromName ? { caller_id_name: opts.fromName } : {}),
      });
    });
};
