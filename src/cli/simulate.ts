import type { Command } from 'commander';
import type { CliIo } from './io.js';
import type { SimulateCommand } from './simulate-run.js';
import { simulateQueueCallCommand, simulateVoicemailCommand } from './simulate-queue.js';
import { simulateCallCommand, simulateHangupCommand, simulateParkingCommand } from './simulate-call.js';
import { simulateMmsCommand, simulateNotificationCommand, simulateObjectCommand, simulateSmsCommand } from './simulate-events.js';
import { simulateFaxCommand, simulateSubscribeCommand } from './simulate-switch.js';
import { simulateRegistrationCommand } from './simulate-registration.js';

/** The `tel simulate` subcommands, declared explicitly (append new kinds here). */
export const SIMULATE_COMMANDS: SimulateCommand[] = [
  simulateCallCommand,
  simulateHangupCommand,
  simulateSmsCommand,
  simulateMmsCommand,
  simulateQueueCallCommand,
  simulateParkingCommand,
  simulateVoicemailCommand,
  simulateNotificationCommand,
  simulateObjectCommand,
  simulateFaxCommand,
  simulateSubscribeCommand,
  simulateRegistrationCommand,
];

/** `tel simulate …`: fire platform events through the same engine as the API. */
export function defineSimulate(cmd: Command, io: CliIo): void {
  cmd.addHelpText(
    'after',
    `
Examples:
  $ tel simulate call --account <id> --from +14155550100 --to +14155550199
  $ tel simulate call --account <id> --direction outbound --device <device_id> --resource <resource_id>
  $ tel simulate call --account <id> --device <device_id> --no-hangup --record
  $ tel simulate hangup --account <id> --call-id <call_id>
  $ tel simulate sms --account <id> --from +442071838750 --body "Running late"
  $ tel simulate queue-call --account <id> --queue <queue_id> --agent <user_id>
  $ tel simulate parking --account <id> --slot 101 --outcome retrieved
  $ tel simulate voicemail --account <id> --vmbox <vmbox_id> --json
  $ tel simulate notification --account <id> --event register
  $ tel simulate fax --account <id> --direction outbound
  $ tel simulate subscribe --account <id> --device <device_id> --to 1001
  $ tel simulate registration --account <id> --device <device_id>

The events go through the same webhook engine as the API; a running \`tel serve\` sends them.
What they leave (CDRs, channels, recordings, messages, faxes, parked calls, queue statistics,
presence subscriptions) is served as Kazoo serves it.`,
  );
  for (const add of SIMULATE_COMMANDS) add(cmd, io);
}
